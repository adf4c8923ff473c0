/**
 * The committed artefacts (contracts/*.sol compiled by scripts/compile-contracts.ts) and the test
 * USDC's typed ABI for the calls this code makes. devchain/compile.test.ts checks that every entry of
 * TEST_USDC_ABI is in the artefact's ABI, so the two cannot drift apart.
 */
import { parseAbi } from "viem";
import multicallJson from "./artifacts/LocalMulticall3.json";
import artifactJson from "./artifacts/TestUSDC.json";
import type { ContractArtifact } from "./compile";

export const TEST_USDC_ARTIFACT_DATA = artifactJson as unknown as ContractArtifact;
export const LOCAL_MULTICALL3_ARTIFACT_DATA = multicallJson as unknown as ContractArtifact;

export const TEST_USDC_ABI = parseAbi([
  "constructor(address initialOwner, string name_)",
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() pure returns (uint8)",
  "function version() pure returns (string)",
  "function owner() view returns (address)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address account) view returns (uint256)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function mint(address to, uint256 amount)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
  "error OwnableUnauthorizedAccount(address account)",
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
]);
