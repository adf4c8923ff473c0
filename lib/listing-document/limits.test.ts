import { describe, expect, it } from "vitest";
import schema from "@/public/schemas/listing.schema.json";
import { checkListingLimits, codePointLength, DOCUMENT_BYTES_LIMIT, fieldMaxItems, fieldMaxLength, utf8Bytes } from "./limits";
import { validateListingDocument } from "./validate";

const minimal = { title: "Weather forecasts by coordinates", baseUrl: "https://api.weatherly.dev" };
const endpoint = { method: "GET", path: "/v1/forecast" };

describe("field limits come from the published schema", () => {
  it("reads top-level, nested, $ref'd and per-endpoint limits", () => {
    expect(fieldMaxLength("/description")).toBe(schema.properties.description.maxLength);
    expect(fieldMaxLength("/description")).toBe(20000);
    expect(fieldMaxLength("/title")).toBe(120);
    expect(fieldMaxLength("/shortDescription")).toBe(280);
    expect(fieldMaxLength("/operations/supportChannel")).toBe(5000);
    expect(fieldMaxLength("/endpoints/7/description")).toBe(5000);
    expect(fieldMaxLength("/endpoints/0/pricing/label")).toBe(200);
    expect(fieldMaxLength("/endpoints/0/pricing/machine/asset")).toBe(128);
    expect(fieldMaxLength("/endpoints/3/pricing/dynamic/driver")).toBe(5000);
    expect(fieldMaxItems("/endpoints")).toBe(200);
  });
  it("says null for a field the schema does not bound, or that does not exist", () => {
    expect(fieldMaxLength("/homepageUrl")).toBeNull();
    expect(fieldMaxLength("/nonsense/field")).toBeNull();
  });
});

describe("checkListingLimits agrees with the server's gate", () => {
  it("passes a document at every limit, and the validator agrees", () => {
    const doc = { ...minimal, description: "x".repeat(20000), endpoints: [{ ...endpoint, description: "d".repeat(5000) }] };
    expect(checkListingLimits(doc)).toEqual([]);
    expect(validateListingDocument(doc).ok).toBe(true);
  });

  it("names each field one character over, by the pointer the validator uses", () => {
    const doc = { ...minimal, description: "x".repeat(20001), endpoints: [endpoint, { ...endpoint, path: "/b", pricing: { label: "$".repeat(201) } }] };
    const mine = checkListingLimits(doc);
    expect(mine.map((e) => e.pointer)).toEqual(["/description", "/endpoints/1/pricing/label"]);
    expect(mine[0]!.message).toBe("is 20,001 characters; the limit is 20,000 (1 over)");
    const server = validateListingDocument(doc);
    expect(server.ok).toBe(false);
    if (!server.ok) {
      expect(server.errors.map((e) => e.pointer).sort()).toEqual(mine.map((e) => e.pointer).sort());
      expect(server.errors[0]!.message).toMatch(/limit of 20,000 characters/);
    }
  });

  it("counts code points as JSON Schema does (an emoji is one character)", () => {
    const emoji = "\u{1F600}";
    expect(codePointLength(emoji.repeat(3))).toBe(3);
    const doc = { ...minimal, title: emoji.repeat(120) };
    expect(checkListingLimits(doc)).toEqual([]);
    expect(validateListingDocument(doc).ok).toBe(true);
    expect(checkListingLimits({ ...minimal, title: emoji.repeat(121) })[0]!.pointer).toBe("/title");
  });

  it("refuses a document larger than the body limit before it is sent (pointer '')", () => {
    // 60 endpoints × a 20 KB schema: every field within its limit, the whole over 1 MiB.
    const big = { type: "object", description: "y".repeat(20_000) };
    const doc = { ...minimal, endpoints: Array.from({ length: 60 }, (_, i) => ({ ...endpoint, path: `/p${i}`, responseSchema: big })) };
    const errs = checkListingLimits(doc);
    expect(errs).toHaveLength(1);
    expect(errs[0]!.pointer).toBe("");
    expect(errs[0]!.message).toMatch(/at most 1008 KB/);
    expect(utf8Bytes(JSON.stringify(doc))).toBeGreaterThan(DOCUMENT_BYTES_LIMIT);
  });

  it("counts UTF-8 bytes like TextEncoder", () => {
    for (const s of ["abc", "é", "€uro", "\u{1F600}x", ""]) expect(utf8Bytes(s)).toBe(new TextEncoder().encode(s).length);
  });

  it("names an endpoints array over maxItems", () => {
    const doc = { ...minimal, endpoints: Array.from({ length: 201 }, (_, i) => ({ ...endpoint, path: `/p${i}` })) };
    expect(checkListingLimits(doc)).toEqual([{ pointer: "/endpoints", message: "has 201 items; the limit is 200" }]);
  });
});
