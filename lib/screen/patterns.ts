/** The pattern screen (docs/spec/trust-rubric.md S2–S4), with an error rate both ways. Pure. */

export type ScreenKind = "injection" | "phishing" | "malware" | "secret_ask";

export interface ScreenMatch {
  pattern: string;
  kind: ScreenKind;
  match: string;
  offset: number;
}

interface Pattern {
  name: string;
  kind: ScreenKind;
  re: RegExp;
  /** A negation turns an ask into advice. */
  unlessBefore?: RegExp;
  accept?: (m: RegExpExecArray) => boolean;
}

const NEGATED_BEFORE = /\b(?:never|not|don'?t|do not|no one|nobody|won'?t|will not|we never|cannot|can'?t)\b[^.!?\n]{0,20}$/i;

const SECRET_NOUN =
  "(?:private[\\s_-]?keys?|secret[\\s_-]?keys?|seed[\\s_-]?phrases?|recovery[\\s_-]?phrases?|secret[\\s_-]?recovery[\\s_-]?phrase|mnemonic(?:\\s+phrase)?|wallet[\\s_-]?password|api[\\s_-]?keys?|access[\\s_-]?tokens?|bearer[\\s_-]?tokens?|auth(?:orization)?[\\s_-]?headers?|(?:an?\\s+)?authorization:\\s*bearer|passwords?)";
const ASK_VERB = "(?:send|provide|include|enter|paste|supply|share|submit|attach|add|give|put|type|upload|post|set)";

const BRANDS: Array<{ brand: string; official: string[] }> = [
  { brand: "coinbase", official: ["coinbase.com"] },
  { brand: "metamask", official: ["metamask.io"] },
  { brand: "uniswap", official: ["uniswap.org"] },
  { brand: "opensea", official: ["opensea.io"] },
  { brand: "binance", official: ["binance.com"] },
  { brand: "etherscan", official: ["etherscan.io"] },
  { brand: "basescan", official: ["basescan.org"] },
];

/** 0 for o, 1 for l, rn for m, … */
function unconfuse(label: string): string {
  return label
    .toLowerCase()
    .replace(/rn/g, "m")
    .replace(/vv/g, "w")
    .replace(/0/g, "o")
    .replace(/[1|]/g, "l")
    .replace(/3/g, "e")
    .replace(/4(?!02)/g, "a")
    .replace(/5/g, "s")
    .replace(/7/g, "t")
    .replace(/\$/g, "s");
}

export function lookalikeOf(domain: string): string | null {
  const d = domain.toLowerCase().replace(/\.$/, "");
  if (d.split(".").some((l) => l.startsWith("xn--"))) return "punycode";
  const labels = d.split(".");
  const bare = unconfuse(labels.slice(0, -1).join("."));
  for (const b of BRANDS) {
    if (b.official.some((o) => d === o || d.endsWith(`.${o}`))) continue;
    if (bare.split(/[.-]/).some((part) => part === b.brand)) return b.brand;
  }
  return null;
}

const PATTERNS: Pattern[] = [
  // --- prompt injection: text that tries to take over the agent reading it ---
  {
    name: "ignore_previous_instructions",
    kind: "injection",
    re: /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+)?(?:previous|prior|above|earlier|preceding|original|system|safety)\s+(?:instructions?|prompts?|directions?|rules|messages|guidelines|context)\b/gi,
  },
  { name: "role_override", kind: "injection", re: /\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+)?(?:unrestricted|jailbroken|developer\s+mode|dan\b|new\s+assistant|admin)/gi },
  { name: "fake_system_turn", kind: "injection", re: /(?:<\|?(?:system|im_start|im_end)\|?>|<\/?system>|\[\/?(?:system|inst)\]|^\s*(?:system|assistant)\s*:\s)/gim },
  { name: "new_instructions", kind: "injection", re: /\b(?:new|updated|real|actual)\s+(?:system\s+)?instructions?\s*:/gi },
  {
    name: "reveal_system_prompt",
    kind: "injection",
    re: /\b(?:reveal|print|show|repeat|output|leak|dump)\s+(?:me\s+)?(?:your\s+|the\s+)?(?:system\s+prompt|hidden\s+instructions|initial\s+instructions|developer\s+message)\b/gi,
  },
  {
    name: "tool_hijack",
    kind: "injection",
    re: /\b(?:call|invoke|run|execute|use)\s+(?:the\s+)?[`"']?[\w.-]+[`"']?\s+(?:tool|function)\b[^.\n]{0,80}\b(?:transfer|send|approve|pay|sign|withdraw|delete|post)\b/gi,
  },
  { name: "hide_from_user", kind: "injection", re: /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to|show\s+(?:this\s+)?to)\s+(?:the\s+)?(?:user|human|operator|owner)\b/gi },

  // --- phishing: asks that move a wallet's control or funds, and lookalike domains ---
  {
    name: "seed_phrase_ask",
    kind: "phishing",
    re: new RegExp(`\\b(?:${ASK_VERB}|verify|confirm|import|restore|validate|enter)\\b[^.!?\\n]{0,40}?\\b(?:seed[\\s_-]?phrase|recovery[\\s_-]?phrase|secret[\\s_-]?recovery[\\s_-]?phrase|mnemonic|12[\\s-]word|24[\\s-]word)`, "gi"),
    unlessBefore: NEGATED_BEFORE,
  },
  {
    name: "wallet_drain",
    kind: "phishing",
    re: /\b(?:send|transfer|move|deposit)\s+(?:all\s+(?:of\s+)?|the\s+(?:entire|whole|full)\s+)?(?:your\s+|the\s+)?(?:funds|balance|usdc|eth|tokens|assets|wallet)\b[^.\n]{0,40}\bto\s+0x[0-9a-fA-F]{40}\b/gi,
  },
  { name: "unlimited_approval", kind: "phishing", re: /\b(?:setApprovalForAll|unlimited\s+(?:allowance|approval|spending)|approve\s+(?:an?\s+)?(?:unlimited|infinite|max(?:imum)?)\s+(?:allowance|amount|spend))\b/gi },
  {
    name: "wallet_verification_lure",
    kind: "phishing",
    re: /\b(?:verify|validate|sync|unlock|reactivate|restore|connect)\s+your\s+wallet\b[^.\n]{0,60}\b(?:to\s+(?:claim|receive|avoid|keep|unlock|restore)|or\s+(?:lose|your\s+funds))/gi,
  },
  {
    name: "lookalike_domain",
    kind: "phishing",
    re: /\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,24}|xn--[a-z0-9-]{2,59})\b/gi,
    accept: (m) => lookalikeOf(m[0]) !== null,
  },

  // --- malware: script or executable payloads ---
  { name: "script_tag", kind: "malware", re: /<script\b[^>]*>/gi },
  { name: "javascript_uri", kind: "malware", re: /\bjavascript:\s*[\w(]/gi },
  { name: "event_handler_html", kind: "malware", re: /<[a-z]+\b[^>]*\son(?:error|load|click|mouseover)\s*=\s*["']?[^"'>\s]/gi },
  { name: "pipe_to_shell", kind: "malware", re: /\b(?:curl|wget)\s+[^|\n]{1,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b/gi },
  { name: "powershell_encoded", kind: "malware", re: /\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-(?:e|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}/gi },
  { name: "eval_decoded", kind: "malware", re: /\b(?:eval|Function|exec)\s*\(\s*(?:atob|unescape|Buffer\.from|base64\.b64decode|decodeURIComponent)\s*\(/gi },
  { name: "executable_base64", kind: "malware", re: /(?:TVqQAAMAAAAEAAAA|TVpQAAIAAAAEAA8A|f0VMRgIBAQ|f0VMRgEBAQ|z\/rt\/gc|yv66vg)[A-Za-z0-9+/]{8,}/g },
  { name: "executable_download", kind: "malware", re: /\bhttps?:\/\/[^\s"'<>]+\.(?:exe|scr|msi|bat|cmd|ps1|vbs|jar|apk|dmg|pkg|dll)(?:[?#][^\s"'<>]*)?(?=[\s"'<>),.;]|$)/gi },
  { name: "executable_data_uri", kind: "malware", re: /\bdata:(?:application\/(?:x-msdownload|x-msdos-program|x-sh|x-executable|javascript)|text\/(?:html|javascript))[;,]/gi },

  // --- asks for secrets beyond x402's own payment header ---
  {
    name: "secret_ask",
    kind: "secret_ask",
    re: new RegExp(`\\b${ASK_VERB}\\b[^.!?\\n]{0,40}?\\b${SECRET_NOUN}`, "gi"),
    unlessBefore: NEGATED_BEFORE,
  },
  {
    name: "secret_field_request",
    kind: "secret_ask",
    re: new RegExp(`\\b(?:requires?|needs?|expects?|must\\s+(?:include|send|provide))\\s+(?:your\\s+|a\\s+|an\\s+|the\\s+)?${SECRET_NOUN}`, "gi"),
    unlessBefore: NEGATED_BEFORE,
  },
];

export const SCREEN_PATTERNS: ReadonlyArray<{ name: string; kind: ScreenKind }> = PATTERNS.map((p) => ({ name: p.name, kind: p.kind }));

export const MAX_SCREEN_CHARS = 200_000;

export function screenText(text: string): ScreenMatch[] {
  const t = text.length > MAX_SCREEN_CHARS ? text.slice(0, MAX_SCREEN_CHARS) : text;
  const out: ScreenMatch[] = [];
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    let m: RegExpExecArray | null;
    let guard = 0;
    while ((m = p.re.exec(t)) !== null && guard++ < 1000) {
      if (m[0].length === 0) {
        p.re.lastIndex++;
        continue;
      }
      if (p.unlessBefore && p.unlessBefore.test(t.slice(Math.max(0, m.index - 40), m.index))) continue;
      if (p.accept && !p.accept(m)) continue;
      out.push({ pattern: p.name, kind: p.kind, match: m[0].slice(0, 200), offset: m.index });
    }
  }
  return out.sort((a, b) => a.offset - b.offset || a.pattern.localeCompare(b.pattern));
}
