export { facilitatorRequest } from "./door";
export { authenticateFacilitatorCaller, facilitatorTokens, type FacilitatorCaller } from "./callers";
export { GAS_RESERVE, gasBudget, gasSpent, reserveGas } from "./gas";
export { bazaarOnSettle, bazaarOnVerify, indexingSettled } from "./receipt";
