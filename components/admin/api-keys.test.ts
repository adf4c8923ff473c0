/** The new key's select example: an absolute URL on this deployment, and a task quoted safely for a shell. */
import { describe, expect, it } from "vitest";
import { selectCurl } from "./api-keys";

describe("selectCurl", () => {
  it("posts to the deployment's absolute /router/select with the task as JSON", () => {
    expect(selectCurl("http://127.0.0.1:3000", "tg_ab12", "Agent Verdict")).toBe(
      `curl -X POST -H "Authorization: Bearer tg_ab12…" -H "content-type: application/json" -d '{"task":"Agent Verdict"}' http://127.0.0.1:3000/router/select`,
    );
  });

  it("closes and reopens the shell quote around an apostrophe in the task", () => {
    expect(selectCurl("https://t.example", "tg_x", "check an agent's work")).toContain(`-d '{"task":"check an agent'\\''s work"}' https://t.example/router/select`);
  });
});
