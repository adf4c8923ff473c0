/** SPELLINGS count as the word itself, SYNONYMS at SYNONYM_WEIGHT; stemmed like the listings (docs/SELECTION.md). */
export const SYNONYM_WEIGHT = 0.8;

export const SPELLINGS: readonly (readonly string[])[] = [
  ["summarise", "summarize", "summary", "summarization", "summarisation", "summariser", "summarizer"],
  ["geocode", "geocoding", "geocoder", "geocodes"],
  ["translate", "translation", "translator"],
  ["transcribe", "transcription", "transcript", "transcriber"],
  ["analyse", "analyze", "analysis", "analyser", "analyzer"],
  ["colour", "color"],
  ["email", "e-mail", "emails"],
  ["optimise", "optimize", "optimisation", "optimization"],
  ["categorise", "categorize", "categorisation", "categorization"],
  ["recognise", "recognize", "recognition"],
  ["verify", "verification", "verifier"],
  ["validate", "validation", "validator"],
];

export const SYNONYMS: readonly (readonly string[])[] = [
  ["summary", "digest", "tldr", "abstract", "condense", "synopsis", "gist"],
  ["geocode", "geolocate", "geolocation"],
  ["coordinates", "latitude", "longitude", "latlng", "gps"],
  ["address", "postcode", "zipcode"],
  ["translate", "localize", "localise", "interpret"],
  // A target language named in a task asks for a translation.
  ["translate", "french", "spanish", "german", "italian", "portuguese", "dutch", "japanese", "chinese", "korean", "arabic", "russian"],
  ["weather", "meteo", "meteorological", "climate"],
  ["forecast", "prediction", "outlook"],
  ["city", "town", "location", "place"],
  ["transcribe", "speech-to-text", "stt", "dictation"],
  ["image", "picture", "photo", "img"],
  ["verify", "validate", "check"],
  ["scrape", "scraper", "crawl", "crawler", "extract"],
  ["search", "lookup", "serp", "look"],
  ["web", "online", "internet"],
  ["page", "link", "url", "website"],
  ["news", "headlines", "articles"],
  ["sentiment", "mood", "emotion", "opinion"],
  ["stock", "equity", "ticker", "shares"],
  ["currency", "forex", "fx"],
  ["crypto", "token", "coin", "onchain"],
  ["price", "quote", "pricing"],
  ["embedding", "embed", "vector"],
  ["pdf", "document"],
  ["whois", "registrar", "registration", "registry", "registrant"],
];
