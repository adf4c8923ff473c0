import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { formatAbiItem } from "viem/utils";
import { keccak256, toHex, type Abi } from "viem";
import { describe, expect, it } from "vitest";
import { compileContract, CONTRACTS, type ContractArtifact } from "./compile";
import { EIP3009_EVENTS, EIP3009_READS, EIP3009_SETTLE_ABI, EIP3009_TYPES } from "@/lib/x402/eip3009";
import { TEST_USDC_ABI } from "./test-usdc";

const root = path.resolve(__dirname, "..");
const committed = (file: string) => JSON.parse(readFileSync(path.join(root, file), "utf8")) as ContractArtifact;

describe("committed contract artefacts", () => {
  for (const c of CONTRACTS) {
    it(`${c.source} recompiles to the committed ${c.artifact} (npm run contracts:compile after a change)`, () => {
      const fresh = compileContract(c.source, c.name, root);
      const saved = committed(c.artifact);
      expect(saved.sourceSha256, "the source changed since the artefact was written").toBe(createHash("sha256").update(readFileSync(path.join(root, c.source))).digest("hex"));
      expect(fresh.solcVersion).toBe(saved.solcVersion);
      expect(fresh.settings).toEqual(saved.settings);
      expect(fresh.bytecode).toBe(saved.bytecode);
      expect(fresh.deployedBytecode).toBe(saved.deployedBytecode);
      expect(fresh.abi).toEqual(saved.abi);
      expect(saved.solcVersion).toMatch(/^0\.8\.37\+/);
      expect(saved.settings.evmVersion).toBe("cancun");
    }, 120_000);
  }

  it("the typed TEST_USDC_ABI is a subset of the artefact's ABI (same signatures)", () => {
    const saved = committed("devchain/artifacts/TestUSDC.json");
    const named = (i: { type: string }) => i.type === "function" || i.type === "event" || i.type === "error";
    const sig = (item: unknown) => formatAbiItem(item as Abi[number]);
    const artefactSigs = new Set((saved.abi as { type: string }[]).filter(named).map(sig));
    for (const item of TEST_USDC_ABI.filter(named)) {
      expect(artefactSigs, sig(item)).toContain(sig(item));
    }
  });

  it("the production EIP-3009 fragments (lib/x402/eip3009.ts) are in the test USDC's artefact, so the dev chain exercises them", () => {
    const saved = committed("devchain/artifacts/TestUSDC.json");
    const sig = (item: unknown) => formatAbiItem(item as Abi[number]);
    const artefactSigs = new Set((saved.abi as { type: string }[]).filter((i) => i.type === "function" || i.type === "event").map(sig));
    for (const item of [...EIP3009_SETTLE_ABI, ...EIP3009_READS, ...EIP3009_EVENTS]) expect(artefactSigs, sig(item)).toContain(sig(item));
    const source = readFileSync(path.join(root, "contracts/TestUSDC.sol"), "utf8");
    for (const [type, fields] of Object.entries(EIP3009_TYPES)) {
      const typeHash = keccak256(toHex(`${type}(${fields.map((f) => `${f.type} ${f.name}`).join(",")})`));
      expect(source, `${type}'s typehash`).toMatch(new RegExp(`_TYPEHASH =\\s*${typeHash};`));
    }
  });

  it("the artefact has both EIP-3009 overloads of each authorization function, as USDC v2.2 does", () => {
    const saved = committed("devchain/artifacts/TestUSDC.json");
    const names = (saved.abi as { type: string; name?: string }[]).filter((i) => i.type === "function").map((i) => i.name);
    for (const fn of ["transferWithAuthorization", "receiveWithAuthorization", "cancelAuthorization"]) {
      expect(names.filter((n) => n === fn)).toHaveLength(2);
    }
  });
});
