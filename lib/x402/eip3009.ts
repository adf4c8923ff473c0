/**
 * EIP-3009 as the payment path reads it (production code, any chain): the typed data an `exact`
 * authorization is signed with, and the two events a settling token emits. The test USDC
 * (contracts/TestUSDC.sol) implements the same; devchain/compile.test.ts holds them together.
 */
import { parseAbi } from "viem";

/** The fields both EIP-3009 transfer authorizations sign (the same as Circle's FiatToken). */
const AUTHORIZATION_FIELDS = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

/** The EIP-712 types an EIP-3009 authorization is signed with. */
export const EIP3009_TYPES = {
  TransferWithAuthorization: AUTHORIZATION_FIELDS,
  ReceiveWithAuthorization: AUTHORIZATION_FIELDS,
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** The one type an x402 `exact` (and an MPP EVM `charge`) authorization is signed with. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = { TransferWithAuthorization: AUTHORIZATION_FIELDS } as const;

/** What a settlement leaves in its receipt: the authorization spent, and the transfer it made. */
export const EIP3009_EVENTS = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);

/** The reads a buyer-side check makes of an EIP-3009 token. */
export const EIP3009_READS = parseAbi([
  "function balanceOf(address account) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function name() view returns (string)",
  "function version() view returns (string)",
]);

/** What the facilitator's preflight reads and simulates: the payer's balance, the nonce, both transfer forms. */
export const EIP3009_SETTLE_ABI = parseAbi([
  "function balanceOf(address account) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
]);
