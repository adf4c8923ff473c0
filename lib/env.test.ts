import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";

describe("parseEnv", () => {
  it("accepts an empty environment (the embedded default)", () => {
    const e = parseEnv({});
    expect(e.DATABASE_URL).toBeUndefined();
    expect(e.dataDir).toMatch(/\.data$/);
    expect(e.TOLLGATE_DEMO_SIGNIN).toBe(false);
  });

  it.each([
    ["DATABASE_URL", { DATABASE_URL: "mysql://x" }, /DATABASE_URL must be a postgresql:\/\/ connection URL/],
    ["TOLLGATE_MIGRATE_URL", { DATABASE_URL: "postgresql://app@db/t", TOLLGATE_MIGRATE_URL: "owner@db" }, /TOLLGATE_MIGRATE_URL must be a postgresql:\/\/ connection URL/],
    ["TOLLGATE_MIGRATE_URL without DATABASE_URL", { TOLLGATE_MIGRATE_URL: "postgresql://owner@db/t" }, /TOLLGATE_MIGRATE_URL needs DATABASE_URL too/],
    ["TOLLGATE_DEMO_SIGNIN", { TOLLGATE_DEMO_SIGNIN: "yes" }, /TOLLGATE_DEMO_SIGNIN/],
    ["NEXTAUTH_SECRET", { NEXTAUTH_SECRET: "short" }, /NEXTAUTH_SECRET must be at least 32 characters/],
    ["TOLLGATE_PROBE_ALLOW_HOSTS", { TOLLGATE_PROBE_ALLOW_HOSTS: "127.0.0.1" }, /TOLLGATE_PROBE_ALLOW_HOSTS must be a comma-separated list of host:port/],
    ["TOLLGATE_MONITOR_REFERENCES", { TOLLGATE_MONITOR_REFERENCES: "https://a.example/,ftp://b.example/" }, /TOLLGATE_MONITOR_REFERENCES must be a comma-separated list of http\(s\) URLs/],
    ["SELLERS_PORT", { SELLERS_PORT: "70000" }, /SELLERS_PORT/],
    ["NEXTAUTH_SECRET in production", { NODE_ENV: "production" }, /NEXTAUTH_SECRET is required in production/],
    ["TOLLGATE_PUBLIC_URL in production", { NODE_ENV: "production", NEXTAUTH_SECRET: "x".repeat(32) }, /TOLLGATE_PUBLIC_URL is required in production/],
    ["TOLLGATE_SIWE_CHAIN_ID", { TOLLGATE_SIWE_CHAIN_ID: "base" }, /TOLLGATE_SIWE_CHAIN_ID/],
  ])("names %s when it is malformed or missing", (_name, source, message) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(message);
  });

  it("takes the public origin from configuration only: TOLLGATE_PUBLIC_URL, then NEXTAUTH_URL", () => {
    expect(parseEnv({}).publicOrigin).toBe("http://127.0.0.1:3000");
    expect(parseEnv({ NEXTAUTH_URL: "https://auth.example/api/auth" }).publicOrigin).toBe("https://auth.example");
    expect(parseEnv({ TOLLGATE_PUBLIC_URL: "https://tollgate.example/", NEXTAUTH_URL: "https://auth.example" }).publicOrigin).toBe("https://tollgate.example");
    const production = { NODE_ENV: "production", NEXTAUTH_SECRET: "x".repeat(32) };
    expect(parseEnv({ ...production, NEXTAUTH_URL: "https://tollgate.example" }).publicOrigin).toBe("https://tollgate.example");
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it("splits the probe allow-list", () => {
    expect(parseEnv({ TOLLGATE_PROBE_ALLOW_HOSTS: "127.0.0.1:4020,localhost:4021" }).probeAllowHosts).toEqual(["127.0.0.1:4020", "localhost:4021"]);
    expect(parseEnv({ TOLLGATE_MONITOR_REFERENCES: "https://a.example/health,http://127.0.0.1:9/" }).monitorReferences).toEqual(["https://a.example/health", "http://127.0.0.1:9/"]);
    expect(parseEnv({}).monitorReferences).toEqual([]);
  });
});
