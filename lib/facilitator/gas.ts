/**
 * The facilitator's gas budget per caller per UTC day (TOLLGATE_FACILITATOR_GAS_DAY; docs/CHAIN.md): reserved with
 * one conditional update, trued up to the receipts' gas.
 */
import { SETTLE_GAS_LIMIT } from "@/lib/chain/facilitator";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { clientOr, rows, type Client } from "@/lib/sql";

/** What one settlement reserves: the gas limit every send carries (lib/chain/facilitator.ts), so the count never runs short. */
export const GAS_RESERVE = SETTLE_GAS_LIMIT;

export function gasBudget(): bigint | null {
  const v = env().TOLLGATE_FACILITATOR_GAS_DAY;
  return v === "off" ? null : BigInt(v);
}

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

function secondsToDayEnd(at: Date): number {
  const end = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.max(1, Math.ceil((end - at.getTime()) / 1000));
}

export interface GasReservation {
  /** `used` replaces the reserve (0 when nothing was sent). */
  done(used: bigint): Promise<void>;
}

export async function reserveGas(caller: string, opts: { budget?: bigint | null; now?: Date; client?: Client } = {}): Promise<GasReservation> {
  const budget = opts.budget !== undefined ? opts.budget : gasBudget();
  const now = opts.now ?? new Date();
  const day = utcDay(now);
  const c = await clientOr(opts.client);
  await rows(c, `INSERT INTO "facilitator_gas" ("day", "caller") VALUES ($1::date, $2) ON CONFLICT ("day", "caller") DO NOTHING RETURNING 1`, day, caller);
  if (budget !== null) {
    const took = await rows<{ spent: string }>(
      c,
      `UPDATE "facilitator_gas" SET "spent" = "spent" + $3::numeric, "settlements" = "settlements" + 1, "updatedAt" = now() AT TIME ZONE 'UTC'
        WHERE "day" = $1::date AND "caller" = $2 AND "spent" + $3::numeric <= $4::numeric
       RETURNING "spent"::text AS "spent"`,
      day,
      caller,
      GAS_RESERVE.toString(),
      budget.toString(),
    );
    if (took.length === 0) {
      const wait = secondsToDayEnd(now);
      throw new AppError("rate_limited", `This facilitator caller has used its gas budget for today (${budget} gas units a UTC day). Try again in ${Math.ceil(wait / 60)} minutes.`, [], {
        limit: "facilitatorGas",
        max: Number(budget),
        windowSeconds: 86_400,
        retryAfterSeconds: wait,
      });
    }
  }
  return {
    async done(used: bigint) {
      if (budget === null) {
        if (used === 0n) return;
        await rows(c, `UPDATE "facilitator_gas" SET "spent" = "spent" + $3::numeric, "settlements" = "settlements" + 1 WHERE "day" = $1::date AND "caller" = $2 RETURNING 1`, day, caller, used.toString());
        return;
      }
      await rows(
        c,
        `UPDATE "facilitator_gas" SET "spent" = GREATEST("spent" + $3::numeric - $4::numeric, 0), "settlements" = "settlements" - (CASE WHEN $3::numeric = 0 THEN 1 ELSE 0 END), "updatedAt" = now() AT TIME ZONE 'UTC'
          WHERE "day" = $1::date AND "caller" = $2 RETURNING 1`,
        day,
        caller,
        used.toString(),
        GAS_RESERVE.toString(),
      );
    },
  };
}

export async function gasSpent(caller: string, opts: { now?: Date; client?: Client } = {}): Promise<{ spent: bigint; settlements: number }> {
  const c = await clientOr(opts.client);
  const got = await rows<{ spent: string; settlements: number }>(c, `SELECT "spent"::text AS "spent", "settlements" FROM "facilitator_gas" WHERE "day" = $1::date AND "caller" = $2`, utcDay(opts.now ?? new Date()), caller);
  return { spent: BigInt(got[0]?.spent ?? "0"), settlements: Number(got[0]?.settlements ?? 0) };
}
