/**
 * A real local chain for a test file: anvil from the npm package, the test USDC deployed, and the
 * parts every paid test needs: a payer funded with 10 USDC and two payees (anvil's well-known
 * development accounts 1–3; local use only).
 */
import { parseSignature, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { LOCAL_USDC_ADDRESS, setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";
import type { SignedAuthorization } from "@/lib/router/payment-headers";

export interface FundedChain {
  node: AnvilNode;
  local: LocalChain;
  payer: PrivateKeyAccount;
  payTo: Address;
  otherPayTo: Address;
}

export async function startFundedChain(): Promise<FundedChain> {
  const node = await startAnvil();
  const local = await setupLocalChain(node.rpcUrl);
  const payer = local.accounts[1];
  await local.mint(payer.address, 10_000_000n);
  return { node, local, payer, payTo: local.accounts[2].address, otherPayTo: local.accounts[3].address };
}

/** Settle an authorization for real, straight on the token (whoever signed the terms around it); its transaction once mined. */
export async function settleOnToken(local: LocalChain, auth: SignedAuthorization, signature: Hex, asset: Address = LOCAL_USDC_ADDRESS): Promise<Hex> {
  const sig = parseSignature(signature);
  const hash = await local.walletClient.writeContract({
    address: asset,
    abi: TEST_USDC_ABI,
    functionName: "transferWithAuthorization",
    args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(sig.v ?? BigInt(sig.yParity + 27)), sig.r, sig.s],
  });
  await local.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}
