/** The readiness result as text for a terminal or CI log (`--format text`); no colours. */
import { loadRubric, type Rubric } from "./rubric";
import type { ReadinessResult, RuleStatus } from "./types";

const STATUS_LABEL: Record<RuleStatus, string> = { pass: "pass", partial: "part", fail: "FAIL", not_observed: "n/o " };
const BAR_WIDTH = 20;

function bar(earned: number, max: number): string {
  const filled = max > 0 ? Math.round((earned / max) * BAR_WIDTH) : 0;
  return "█".repeat(filled) + "░".repeat(BAR_WIDTH - filled);
}

const pts = (x: number) => x.toFixed(2).replace(/\.00$/, "");

export function formatTextReport(result: ReadinessResult, rubric: Rubric = loadRubric(result.rubricVersion)): string {
  const lines: string[] = [];
  const title = new Map(rubric.dimensions.map((d) => [d.id as string, d.title]));
  const ruleTitle = new Map(rubric.rules.map((r) => [r.id as string, r.title]));

  lines.push(`Readiness ${result.total}/100 · ${result.band.label}${result.provisional ? " · PROVISIONAL" : ""} · ${result.rubricVersion}`);
  // rawTotal as stored, never rounded again: 89.499999 must not read 89.50.
  lines.push(`Raw total ${result.rawTotal} before caps`);
  if (result.provisional) lines.push("Provisional: H1–H3 not observed (0 points), no cap evaluated. Never published or shown on a badge.");
  if (result.caps.length === 0) lines.push(result.provisional ? "Caps: not evaluated" : "Caps: none triggered");
  else {
    lines.push(`Capped at ${result.caps[0].value} by ${result.caps[0].id}`);
    for (const c of result.caps) lines.push(`  ${c.id} (${c.value}): ${c.reason}`);
  }

  lines.push("", "Dimensions");
  for (const d of result.dimensions) {
    lines.push(`  ${(title.get(d.id) ?? d.id).padEnd(14)} ${bar(d.earned, d.max)} ${pts(d.earned).padStart(5)}/${d.max}`);
  }

  lines.push("", "Rules");
  for (const r of result.rules) {
    const where = r.endpoints.length ? ` [${r.endpoints.join(", ")}]` : "";
    lines.push(`  ${STATUS_LABEL[r.status]} ${r.id.padEnd(3)} ${`${pts(r.earned)}/${r.max}`.padStart(7)}  ${ruleTitle.get(r.id) ?? ""}: ${r.reason}${where}`);
  }

  lines.push("", result.improvements.length ? "Improvements (most valuable first)" : "Improvements: none, every observed rule earns full points");
  result.improvements.forEach((i, n) => {
    lines.push(`  ${String(n + 1).padStart(2)}. ${i.blocker ? "[blocker] " : ""}${i.ruleId} +${pts(i.points)} (${i.effort} effort): ${i.action}`);
  });
  return lines.join("\n") + "\n";
}
