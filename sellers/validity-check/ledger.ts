/**
 * The payments ledger: the closed field list of docs/spec/products.md "Validity-check custody", one
 * row per settled delivery, in memory per process. A row is built field by field from the
 * settlement and the delivery's closed-form verdict line; nothing of the submitted artefact, and no
 * free-form submitted text, can reach it.
 */
import type { Op } from "./contract";

/** The closed list, in the criteria's order: a row has exactly these members. */
export const LEDGER_FIELDS = [
  "payer_wallet", // payer wallet
  "timestamp", // timestamp/day
  "day",
  "price_usdc_units", // price (USDC units) with the CAD fair-market-value block
  "cad_fmv",
  "payment_tx_id", // payment tx id + Solana fee (lamports)
  "solana_fee_lamports",
  "criteria_version", // criteria version
  "op", // op
  "verdict_line", // verdict line
  "house", // house flag
] as const;

export interface CadFairMarketValue {
  /** USDC→CAD rate, once established (a decimal string), else null. */
  rate: string | null;
  rate_date: string | null;
  basis: string | null;
  cad_pending: boolean;
  refund: boolean;
}

export interface LedgerRow {
  payer_wallet: string;
  timestamp: string;
  day: string;
  price_usdc_units: string;
  cad_fmv: CadFairMarketValue;
  payment_tx_id: string;
  /** A Solana payment's fee; null for a payment on an EVM network. */
  solana_fee_lamports: string | null;
  criteria_version: string;
  op: Op;
  verdict_line: string;
  house: boolean;
}

export interface Settlement {
  payer: string;
  transaction: string;
  network: string;
}

export class PaymentsLedger {
  private readonly rows: LedgerRow[] = [];

  constructor(private readonly house: ReadonlySet<string>) {}

  record(o: { settlement: Settlement; atMs: number; priceUsdcUnits: string; criteriaVersion: string; op: Op; verdictLine: string }): LedgerRow {
    const timestamp = new Date(o.atMs).toISOString();
    const row: LedgerRow = {
      payer_wallet: o.settlement.payer,
      timestamp,
      day: timestamp.slice(0, 10),
      price_usdc_units: o.priceUsdcUnits,
      // No rate source is wired in this build: the CAD value is pending, and said so.
      cad_fmv: { rate: null, rate_date: null, basis: null, cad_pending: true, refund: false },
      payment_tx_id: o.settlement.transaction,
      solana_fee_lamports: null,
      criteria_version: o.criteriaVersion,
      op: o.op,
      verdict_line: o.verdictLine,
      house: this.house.has(o.settlement.payer.toLowerCase()),
    };
    this.rows.push(row);
    return row;
  }

  /** Copies of the rows, oldest first. */
  list(): LedgerRow[] {
    return this.rows.map((r) => ({ ...r, cad_fmv: { ...r.cad_fmv } }));
  }
}
