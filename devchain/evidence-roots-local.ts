/**
 * The EvidenceRoots contract on the local chain (dev chain only): deployed through the deterministic
 * CREATE2 deployer anvil ships at 0x4e59…956C (salt 0, owner the facilitator's signer, anvil's
 * account 9), so its address is one constant whatever the deployer's nonce, on a fresh chain or on
 * the demo's saved state. lib/attest/evidence-roots.ts holds that address as data.
 */
import { concat, encodeAbiParameters, getAddress, getContractAddress, keccak256, parseAbi, type Account, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import artifactJson from "./artifacts/EvidenceRoots.json";
import type { ContractArtifact } from "./compile";

export const EVIDENCE_ROOTS_ARTIFACT_DATA = artifactJson as unknown as ContractArtifact;
const OWNER_ABI = parseAbi(["function owner() view returns (address)"]);

/** Arachnid's deterministic deployment proxy: calldata salt ‖ initcode, CREATE2 from this address. */
export const CREATE2_DEPLOYER: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";
export const EVIDENCE_ROOTS_SALT: Hex = `0x${"00".repeat(32)}`;

/** The facilitator's signer on the local chain (anvil's account 9; a public key, local use only). */
const ACCOUNT_9_KEY: Hex = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";
export const LOCAL_EVIDENCE_ROOTS_OWNER: Address = privateKeyToAccount(ACCOUNT_9_KEY).address;

/** The creation code with its constructor argument (the owner). */
export function evidenceRootsInitCode(owner: Address): Hex {
  return concat([EVIDENCE_ROOTS_ARTIFACT_DATA.bytecode, encodeAbiParameters([{ type: "address" }], [getAddress(owner)])]);
}

/** Where the CREATE2 deployer puts EvidenceRoots owned by `owner`. */
export function evidenceRootsAddress(owner: Address = LOCAL_EVIDENCE_ROOTS_OWNER): Address {
  return getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt: EVIDENCE_ROOTS_SALT, bytecodeHash: keccak256(evidenceRootsInitCode(owner)) });
}

/**
 * Deploy EvidenceRoots owned by `owner` (default: the local facilitator's signer) unless it is there
 * already; any account may pay for the deployment. Resolves to its address once it answers `owner()`.
 */
export async function deployEvidenceRoots(
  publicClient: PublicClient<Transport, Chain>,
  walletClient: WalletClient<Transport, Chain, Account>,
  owner: Address = LOCAL_EVIDENCE_ROOTS_OWNER,
): Promise<Address> {
  const address = evidenceRootsAddress(owner);
  const code = await publicClient.getCode({ address });
  if (!code || code === "0x") {
    const deployer = await publicClient.getCode({ address: CREATE2_DEPLOYER });
    if (!deployer || deployer === "0x") throw new Error(`this chain has no CREATE2 deployer at ${CREATE2_DEPLOYER} (anvil ships one unless --disable-default-create2-deployer)`);
    const hash = await walletClient.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([EVIDENCE_ROOTS_SALT, evidenceRootsInitCode(owner)]) });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`deploying EvidenceRoots reverted (${hash})`);
  }
  const actual = await publicClient.readContract({ address, abi: OWNER_ABI, functionName: "owner" });
  if (getAddress(actual) !== getAddress(owner)) throw new Error(`EvidenceRoots at ${address} is owned by ${actual}, not ${owner}`);
  return address;
}
