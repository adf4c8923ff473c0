/** The agent-verdict service and its pure parts (docs/spec/products.md "Agent verdict service"). */
export { startAgentVerdict, servedProductDocument, type AgentVerdictOptions, type AgentVerdictService } from "./service";
export { prepareRequest, type PreparedRequest } from "./request";
export { judge, PROGRAM_ROOT, REGISTRY_ROOT, type VerdictOutput } from "./verdict";
export { quoteAmount, quoteFor } from "./pricing";
export { receiptSigner, verifyStatement } from "./signer";
export { CHECKS } from "./checks";
