/** Direction (docs/SELECTION.md "Direction"): what a task asks for, what a listing takes and returns. */
import { describe, expect, it } from "vitest";
import { askedFor, fold, listingDirection, readsTheOtherWay } from "./direction";

const FORWARD = ["Convert street addresses to latitude and longitude coordinates.", "Forward geocoding: an address in, coordinates out.", "Address to coordinates lookup for agents."];
const REVERSE = ["Turn latitude and longitude coordinates into the nearest street address.", "Reverse geocoding: coordinates in, address out."];
const BOTH = "Turn a street address into latitude and longitude coordinates, or coordinates back into an address.";
const other = (task: string, text: string) => readsTheOtherWay(askedFor(task), listingDirection(text));

describe("what a task asks for", () => {
  it.each<[string, string[]]>([
    ["geocode the street address 12 Main Street, Springfield to coordinates", ["coordinate"]],
    ["turn the address 648 Rue de Rivoli, Paris into map coordinates", ["map", "coordinate"]],
    ["what are the coordinates of 573 Friedrichstrasse, Berlin", ["coordinate"]],
    ["find the latitude and longitude of 12 Main Street", ["latitude", "longitude"]],
    ["which street address is nearest to 40.342, -73.98", ["street", "address"]],
    ["find the address at latitude longitude 52.236, 13.40", ["address"]],
    ["reverse geocode the coordinates 52.1, 13.40 to an address", ["address"]],
    ["give me the gist of report number 854", ["gist"]],
    ["convert this text -> speech", ["speech"]],
  ])("%s → %j", (task, asked) => {
    expect([...askedFor(task)]).toEqual(asked);
  });

  it.each([
    // "to" after these starts a verb: the task asks for no destination.
    "I need an API to summarise a long article",
    "I want to transcribe an audio recording",
    "to geocode an address",
    "transcribe a recording of a meeting",
    "weather forecast for a city",
  ])("%s → nothing", (task) => {
    expect(askedFor(task).size).toBe(0);
  });
});

describe("what a listing takes and returns", () => {
  it("reads 'A to B', 'A into B' and 'A in, B out', clause by clause", () => {
    expect(listingDirection(FORWARD[0])).toEqual({ takes: new Set(["address", "street"]), returns: new Set(["latitude", "longitude", "coordinate"]) });
    expect(listingDirection(FORWARD[1])).toEqual({ takes: new Set(["address"]), returns: new Set(["coordinate"]) });
    expect(listingDirection(REVERSE[0])).toEqual({ takes: new Set(["coordinate", "longitude", "latitude"]), returns: new Set(["nearest", "street", "address"]) });
    expect(listingDirection("MP3 or WAV in, a transcript out.")).toEqual({ takes: new Set(["wav"]), returns: new Set(["transcript"]) });
    // Both ways: takes and returns each.
    const both = listingDirection(BOTH);
    expect([...both.returns].sort()).toEqual(["address", "coordinate", "latitude", "longitude"]);
    // Nothing directional said, nothing read.
    expect(listingDirection("Nearest address for a coordinate pair.")).toEqual({ takes: new Set(), returns: new Set() });
  });

  it("folds plurals, never words that only end in s", () => {
    expect(["addresses", "coordinates", "queries", "address", "status", "gps"].map(fold)).toEqual(["address", "coordinate", "query", "address", "status", "gps"]);
  });
});

describe("reads the other way", () => {
  it("a forward geocoder for a reverse task and a reverse geocoder for a forward task; neither for its own", () => {
    for (const text of FORWARD) {
      expect(other("which street address is nearest to 40.342, -73.98", text)).toBe(true);
      expect(other("what are the coordinates of 573 Friedrichstrasse, Berlin", text)).toBe(false);
    }
    for (const text of REVERSE) {
      expect(other("what are the coordinates of 573 Friedrichstrasse, Berlin", text)).toBe(true);
      expect(other("turn the address 648 Rue de Rivoli, Paris into map coordinates", text)).toBe(true);
      expect(other("reverse geocode the coordinates 52.1, 13.40 to an address", text)).toBe(false);
    }
  });

  it("a listing that goes both ways, or says neither, is never turned", () => {
    for (const task of ["which street address is nearest to 40.342, -73.98", "what are the coordinates of 12 Main Street"]) {
      expect(other(task, BOTH)).toBe(false);
      expect(other(task, "Geocoding API for agents. JSON.")).toBe(false);
    }
  });

  it("a task that asks for nothing turns nothing", () => {
    for (const text of [...FORWARD, ...REVERSE]) expect(other("geocoding", text)).toBe(false);
  });
});
