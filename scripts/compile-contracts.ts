/**
 * `npm run contracts:compile` — compiles the contracts under contracts/ with the npm solc (settings
 * and the list in devchain/compile.ts) and writes their artefacts to devchain/artifacts/, which
 * are committed. A test (devchain/compile.test.ts) recompiles and requires the same bytecode, so
 * run this after editing a source or changing the solc or @openzeppelin/contracts version.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { compileContract, CONTRACTS } from "@/devchain/compile";

for (const c of CONTRACTS) {
  const artifact = compileContract(c.source, c.name);
  writeFileSync(path.join(process.cwd(), c.artifact), JSON.stringify(artifact, null, 2) + "\n");
  process.stdout.write(
    `${c.artifact}: ${artifact.contractName}, solc ${artifact.solcVersion}, ` +
      `${(artifact.bytecode.length - 2) / 2} bytes of creation code, source sha256 ${artifact.sourceSha256}\n`,
  );
}
