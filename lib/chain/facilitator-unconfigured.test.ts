/** Without TOLLGATE_CHAIN_RPC_URL / TOLLGATE_FACILITATOR_KEY the facilitator routes answer 503 `unavailable`. */
import { describe, expect, it } from "vitest";
import { GET as supportedRoute } from "@/app/api/facilitator/supported/route";
import { POST as settleRoute } from "@/app/api/facilitator/settle/route";
import { POST as verifyRoute } from "@/app/api/facilitator/verify/route";
import { AppError } from "@/lib/errors";
import { facilitatorFromEnv } from "./facilitator";
import { LOCAL_DEV_KEYS } from "@/devchain/local-chain";

delete process.env.TOLLGATE_CHAIN_RPC_URL;
delete process.env.TOLLGATE_FACILITATOR_KEY;

describe("an unconfigured facilitator", () => {
  it("answers 503 unavailable on every route, naming the settings", async () => {
    const post = (body: string) => new Request("http://127.0.0.1/api/facilitator", { method: "POST", headers: { "content-type": "application/json" }, body });
    for (const res of [await supportedRoute(), await verifyRoute(post("{}")), await settleRoute(post("{not json"))]) {
      expect(res.status).toBe(503);
      const json = await res.json();
      expect(json.error.code).toBe("unavailable");
      expect(json.error.message).toMatch(/TOLLGATE_CHAIN_RPC_URL and TOLLGATE_FACILITATOR_KEY/);
    }
  });

  it("names only the missing setting when one is set", () => {
    const err = (() => {
      try {
        facilitatorFromEnv({ TOLLGATE_CHAIN_RPC_URL: "http://127.0.0.1:8545", TOLLGATE_FACILITATOR_KEY: undefined });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toMatch(/set TOLLGATE_FACILITATOR_KEY\./);
    expect(facilitatorFromEnv({ TOLLGATE_CHAIN_RPC_URL: "http://127.0.0.1:8545", TOLLGATE_FACILITATOR_KEY: LOCAL_DEV_KEYS[9] }).address).toBe("0xa0Ee7A142d267C1f36714E4a8F75612F20a79720");
  });
});
