/**
 * Compiles the repository's Solidity (contracts/) with the npm `solc` through its standard-JSON API.
 * One function for the build script (scripts/compile-contracts.ts, which writes the committed
 * artefact) and the test that recompiles and compares, so both use the same settings.
 * Imports resolve from the repository's node_modules (e.g. `@openzeppelin/contracts/...`); nothing
 * is downloaded.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import solc from "solc";

/** Fixed compiler settings: a change here changes the bytecode, so the artefact records them. */
export const SOLC_SETTINGS = {
  evmVersion: "cancun",
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
} as const;

export interface ContractArtifact {
  contractName: string;
  /** Repository-relative source path. */
  sourcePath: string;
  /** sha256 of the source file's bytes, hex. */
  sourceSha256: string;
  /** solc's full version string, e.g. "0.8.37+commit.….Emscripten.clang". */
  solcVersion: string;
  settings: { evmVersion: string; optimizer: { enabled: boolean; runs: number } };
  abi: readonly unknown[];
  /** Creation bytecode, 0x-prefixed. */
  bytecode: `0x${string}`;
  /** Runtime bytecode, 0x-prefixed. */
  deployedBytecode: `0x${string}`;
}

export class CompileError extends Error {
  constructor(public readonly errors: string[]) {
    super(`solc failed:\n${errors.join("\n")}`);
    this.name = "CompileError";
  }
}

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

/**
 * Compile `sourcePath` (relative to `root`) and return the named contract's artefact.
 * Warnings are tolerated; any error throws CompileError with solc's messages.
 */
export function compileContract(sourcePath: string, contractName: string, root: string = process.cwd()): ContractArtifact {
  const source = readFileSync(path.join(root, sourcePath));
  const input = {
    language: "Solidity",
    sources: { [sourcePath]: { content: source.toString("utf8") } },
    settings: SOLC_SETTINGS,
  };
  const findImports = (importPath: string): { contents: string } | { error: string } => {
    // Only package imports (node_modules) and repository files; never a path outside the repository.
    const candidates = [path.join(root, "node_modules", importPath), path.join(root, importPath)];
    for (const file of candidates) {
      if (!path.resolve(file).startsWith(path.resolve(root) + path.sep)) continue;
      try {
        return { contents: readFileSync(file, "utf8") };
      } catch {
        // try the next candidate
      }
    }
    return { error: `import not found: ${importPath}` };
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error").map((e) => e.formattedMessage);
  if (errors.length > 0) throw new CompileError(errors);
  const compiled = output.contracts?.[sourcePath]?.[contractName];
  if (!compiled) throw new CompileError([`contract ${contractName} not found in ${sourcePath}`]);
  return {
    contractName,
    sourcePath,
    sourceSha256: createHash("sha256").update(source).digest("hex"),
    solcVersion: solc.version() as string,
    settings: { evmVersion: SOLC_SETTINGS.evmVersion, optimizer: { ...SOLC_SETTINGS.optimizer } },
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
    deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
  };
}

/** The contracts this room builds: source, contract name, committed artefact. */
export const CONTRACTS = [
  { source: "contracts/TestUSDC.sol", name: "TestUSDC", artifact: "devchain/artifacts/TestUSDC.json" },
  { source: "contracts/LocalMulticall3.sol", name: "LocalMulticall3", artifact: "devchain/artifacts/LocalMulticall3.json" },
  { source: "contracts/EvidenceRoots.sol", name: "EvidenceRoots", artifact: "devchain/artifacts/EvidenceRoots.json" },
] as const;
