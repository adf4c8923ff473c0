/**
 * A real local chain for a test file: anvil from the npm package, the test USDC deployed, and the
 * parts every paid test needs: a payer funded with 10 USDC and two payees (anvil's well-known
 * development accounts 1–3; local use only).
 */
import type { Address, PrivateKeyAccount } from "viem";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { setupLocalChain, type LocalChain } from "@/devchain/local-chain";

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
