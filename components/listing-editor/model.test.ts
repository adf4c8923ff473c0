import { describe, expect, it } from "vitest";
import { emptyEndpoint, idOf, initialJsonTexts, jsonKey, nn, withoutEndpoint } from "./model";

describe("listing editor model", () => {
  it("keeps each endpoint's JSON texts under its index, pretty-printed, empty for null", () => {
    const t = initialJsonTexts([{ ...emptyEndpoint(), requestSchema: { type: "object" } }, emptyEndpoint()]);
    expect(t).toEqual({
      "0/requestSchema": '{\n  "type": "object"\n}',
      "0/responseSchema": "",
      "0/requestExample": "",
      "1/requestSchema": "",
      "1/responseSchema": "",
      "1/requestExample": "",
    });
    expect(jsonKey(1, "responseSchema")).toBe("1/responseSchema");
  });

  it("moves the later endpoints' texts up one when an endpoint is removed", () => {
    const t = { "0/requestSchema": "a", "1/requestSchema": "b", "1/responseSchema": "c", "2/requestExample": "d" };
    expect(withoutEndpoint(t, 1)).toEqual({ "0/requestSchema": "a", "1/requestExample": "d" });
    expect(withoutEndpoint(t, 0)).toEqual({ "0/requestSchema": "b", "0/responseSchema": "c", "1/requestExample": "d" });
  });

  it("ids follow the JSON pointer; a blank text is null", () => {
    expect(idOf("/endpoints/0/pricing/usd")).toBe("f-endpoints-0-pricing-usd");
    expect(nn("  ")).toBeNull();
    expect(nn(" x ")).toBe(" x ");
  });
});
