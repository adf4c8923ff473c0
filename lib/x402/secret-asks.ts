/**
 * S4 "No secret asks" (docs/spec/trust-rubric.md): pattern checks for imperative asks, secret-named input fields and
 * credential headers. A clever ask in prose can pass.
 */
import type { Finding } from "@/lib/evidence";
import { walkStrings } from "./json";

const SECRET =
  "(?:private[\\s_-]?key|secret[\\s_-]?key|seed[\\s_-]?phrase|recovery[\\s_-]?phrase|mnemonic|wallet[\\s_-]?password|api[\\s_-]?key|access[\\s_-]?token|bearer[\\s_-]?token|auth(?:orization)?[\\s_-]?header|password)";
const ASK = "(?:send|provide|include|enter|paste|supply|share|submit|attach|add|give|put|type|upload)";
/** "send us your private key". */
const IMPERATIVE = new RegExp(`\\b${ASK}\\b[^.!?\\n]{0,40}?\\b${SECRET}`, "i");
/** "never send your seed phrase" is advice. */
const NEGATED = /\b(?:never|not|don'?t|do not|no one|nobody|won'?t|will not)\b[^.!?\n]{0,12}$/i;
const SECRET_FIELD = /^(?:private_?key|privkey|secret_?key|seed_?phrase|seed|mnemonic|recovery_?phrase|wallet_?password|password)$/i;
/** Beyond x402's own. */
const CREDENTIAL_HEADER = /^(?:authorization|proxy-authorization|x-api-key|api-key|x-auth-token|x-access-token|cookie)$/i;

export interface SecretAskSource {
  /** The PaymentRequired, the MPP request. */
  json?: unknown;
  /** A docs page, a text body. */
  text?: string;
  /** Prefixed to pointers in messages ("header", "body", "docs"). */
  label: string;
}

export function findSecretAsks(sources: SecretAskSource[]): Finding[] {
  const findings: Finding[] = [];
  for (const src of sources) {
    if (src.json !== undefined) {
      for (const { pointer, text, isKey } of walkStrings(src.json)) {
        if (isKey && SECRET_FIELD.test(text.replace(/[\s-]/g, "_"))) {
          findings.push({ check: "S4", severity: "fail", code: "asks_for_secret_field", message: `The ${src.label} asks for a field named "${text}", which is a wallet secret.`, pointer });
        } else if (isKey && /\/headers\/[^/]+$/.test(pointer) && CREDENTIAL_HEADER.test(text)) {
          findings.push({ check: "S4", severity: "fail", code: "asks_for_auth_header", message: `The ${src.label} asks the caller to send a "${text}" header; x402 needs no credential beyond the payment.`, pointer });
        } else if (!isKey) {
          const ask = imperativeAsk(text);
          if (ask) findings.push({ check: "S4", severity: "fail", code: "asks_for_secret", message: `The ${src.label} asks for a secret: "${ask}".`, pointer });
        }
      }
    }
    if (src.text) {
      const ask = imperativeAsk(src.text);
      if (ask) findings.push({ check: "S4", severity: "fail", code: "asks_for_secret", message: `The ${src.label} asks for a secret: "${ask}".` });
    }
  }
  // The same ask in header and echoed body is one.
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.code}|${f.pointer ?? ""}|${f.message.replace(/^The [^:]+ asks/, "")}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Most strings in a 402 name no secret. */
const SECRET_HINT = new RegExp(SECRET, "i");

function imperativeAsk(text: string): string | null {
  if (!SECRET_HINT.test(text)) return null;
  const re = new RegExp(IMPERATIVE.source, "gi");
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const before = text.slice(Math.max(0, m.index - 40), m.index);
    if (!NEGATED.test(before)) return m[0].slice(0, 120);
  }
  return null;
}
