/** Evidence probed at another address than the listing's is said to be, so its TLS and networks are not read as the listing's. */
import { describe, expect, it } from "vitest";
import { evidenceElsewhere } from "./probe-evidence";

describe("evidenceElsewhere", () => {
  it("names both addresses when the evidence was probed elsewhere, and is silent when they agree", () => {
    expect(evidenceElsewhere("https://api.geocodr.io", "http://127.0.0.1:37083/mature-and-honest")).toBe(
      "This evidence was probed at https://api.geocodr.io, not at the listing's base URL http://127.0.0.1:37083/mature-and-honest: its TLS, networks and answers describe that address. The next analysis probes the listing where it is.",
    );
    expect(evidenceElsewhere("https://API.geocodr.io/", "https://api.geocodr.io")).toBeNull();
    expect(evidenceElsewhere("https://api.geocodr.io", null)).toBeNull();
    expect(evidenceElsewhere("not a url", "https://api.geocodr.io")).toBeNull();
  });
});
