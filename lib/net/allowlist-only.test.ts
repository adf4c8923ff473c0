import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { safeFetch, validateTarget } from "@/lib/net";

describe("allow-list-only mode (sandboxed demo)", () => {
  const saved = process.env.TOLLGATE_NET_ALLOWLIST_ONLY;
  afterEach(() => {
    if (saved === undefined) delete process.env.TOLLGATE_NET_ALLOWLIST_ONLY;
    else process.env.TOLLGATE_NET_ALLOWLIST_ONLY = saved;
  });

  it("refuses a public host before any DNS lookup, by option or by environment", async () => {
    expect(validateTarget("https://api.example.com/x", { allowListOnly: true })).toMatchObject({ ok: false, refusal: "host_not_allowlisted" });
    process.env.TOLLGATE_NET_ALLOWLIST_ONLY = "1";
    let lookups = 0;
    const res = await safeFetch("https://api.example.com/x", {
      resolver: async () => {
        lookups++;
        return [{ address: "93.184.215.14", family: 4 }];
      },
    });
    expect(res).toMatchObject({ ok: false, refusal: "host_not_allowlisted", stage: "validate" });
    expect(lookups).toBe(0);
  });

  it("still reaches an allow-listed loopback seller", async () => {
    const server = http.createServer((_req, res) => res.writeHead(402, { "content-type": "application/json" }).end("{}"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const res = await safeFetch(`http://127.0.0.1:${port}/paid`, { allowHosts: [`127.0.0.1:${port}`], allowListOnly: true });
      expect(res).toMatchObject({ ok: true, status: 402 });
    } finally {
      server.close();
    }
  });

  it("is off unless asked for", () => {
    delete process.env.TOLLGATE_NET_ALLOWLIST_ONLY;
    expect(validateTarget("https://api.example.com/x")).toMatchObject({ ok: true });
  });
});
