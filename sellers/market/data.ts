/**
 * The demo market's committed domain data (sellers/market/answers.ts answers from it, offline): a
 * gazetteer of real places and addresses with their coordinates, the assets the price model knows,
 * a small search corpus on the reserved `.example` domain, Scribe's languages and demo script.
 */

export interface City {
  name: string;
  aliases?: string[];
  country: string;
  lat: number;
  lon: number;
  timezone: string;
  postcode?: string;
}

/** Cities (city-level answers, and the MPP geo lookup's nearest city with its IANA timezone). */
export const CITIES: readonly City[] = [
  { name: "Berlin", country: "DE", lat: 52.52, lon: 13.405, timezone: "Europe/Berlin" },
  { name: "Munich", aliases: ["München", "Muenchen"], country: "DE", lat: 48.1374, lon: 11.5755, timezone: "Europe/Berlin" },
  { name: "Hamburg", country: "DE", lat: 53.5511, lon: 9.9937, timezone: "Europe/Berlin" },
  { name: "London", country: "GB", lat: 51.5074, lon: -0.1278, timezone: "Europe/London" },
  { name: "Edinburgh", country: "GB", lat: 55.9533, lon: -3.1883, timezone: "Europe/London" },
  { name: "Paris", country: "FR", lat: 48.8566, lon: 2.3522, timezone: "Europe/Paris" },
  { name: "Lyon", country: "FR", lat: 45.764, lon: 4.8357, timezone: "Europe/Paris" },
  { name: "Madrid", country: "ES", lat: 40.4168, lon: -3.7038, timezone: "Europe/Madrid" },
  { name: "Barcelona", country: "ES", lat: 41.3874, lon: 2.1686, timezone: "Europe/Madrid" },
  { name: "Rome", aliases: ["Roma"], country: "IT", lat: 41.9028, lon: 12.4964, timezone: "Europe/Rome" },
  { name: "Milan", aliases: ["Milano"], country: "IT", lat: 45.4642, lon: 9.19, timezone: "Europe/Rome" },
  { name: "Amsterdam", country: "NL", lat: 52.3676, lon: 4.9041, timezone: "Europe/Amsterdam" },
  { name: "Vienna", aliases: ["Wien"], country: "AT", lat: 48.2082, lon: 16.3738, timezone: "Europe/Vienna" },
  { name: "Zurich", aliases: ["Zürich"], country: "CH", lat: 47.3769, lon: 8.5417, timezone: "Europe/Zurich" },
  { name: "Stockholm", country: "SE", lat: 59.3293, lon: 18.0686, timezone: "Europe/Stockholm" },
  { name: "Warsaw", aliases: ["Warszawa"], country: "PL", lat: 52.2297, lon: 21.0122, timezone: "Europe/Warsaw" },
  { name: "Lisbon", aliases: ["Lisboa"], country: "PT", lat: 38.7223, lon: -9.1393, timezone: "Europe/Lisbon" },
  { name: "New York", aliases: ["NYC"], country: "US", lat: 40.7128, lon: -74.006, timezone: "America/New_York" },
  { name: "Washington", country: "US", lat: 38.9072, lon: -77.0369, timezone: "America/New_York" },
  { name: "San Francisco", country: "US", lat: 37.7749, lon: -122.4194, timezone: "America/Los_Angeles" },
  { name: "Chicago", country: "US", lat: 41.8781, lon: -87.6298, timezone: "America/Chicago" },
  { name: "Toronto", country: "CA", lat: 43.6532, lon: -79.3832, timezone: "America/Toronto" },
  { name: "Mexico City", country: "MX", lat: 19.4326, lon: -99.1332, timezone: "America/Mexico_City" },
  { name: "São Paulo", aliases: ["Sao Paulo"], country: "BR", lat: -23.5505, lon: -46.6333, timezone: "America/Sao_Paulo" },
  { name: "Buenos Aires", country: "AR", lat: -34.6037, lon: -58.3816, timezone: "America/Argentina/Buenos_Aires" },
  { name: "Tokyo", country: "JP", lat: 35.6762, lon: 139.6503, timezone: "Asia/Tokyo" },
  { name: "Seoul", country: "KR", lat: 37.5665, lon: 126.978, timezone: "Asia/Seoul" },
  { name: "Singapore", country: "SG", lat: 1.3521, lon: 103.8198, timezone: "Asia/Singapore" },
  { name: "Mumbai", country: "IN", lat: 19.076, lon: 72.8777, timezone: "Asia/Kolkata" },
  { name: "Dubai", country: "AE", lat: 25.2048, lon: 55.2708, timezone: "Asia/Dubai" },
  { name: "Cairo", country: "EG", lat: 30.0444, lon: 31.2357, timezone: "Africa/Cairo" },
  { name: "Nairobi", country: "KE", lat: -1.2921, lon: 36.8219, timezone: "Africa/Nairobi" },
  { name: "Cape Town", country: "ZA", lat: -33.9249, lon: 18.4241, timezone: "Africa/Johannesburg" },
  { name: "Sydney", country: "AU", lat: -33.8688, lon: 151.2093, timezone: "Australia/Sydney" },
];

export interface Address {
  street: string;
  houseNumber?: string;
  postcode: string;
  city: string;
  country: string;
  lat: number;
  lon: number;
  /** Other names the place is asked for by (a landmark's name). */
  aliases?: string[];
}

/** Street addresses (landmarks, mostly) with their coordinates. */
export const ADDRESSES: readonly Address[] = [
  { street: "Alexanderplatz", houseNumber: "1", postcode: "10178", city: "Berlin", country: "DE", lat: 52.5219, lon: 13.4132 },
  { street: "Pariser Platz", houseNumber: "1", postcode: "10117", city: "Berlin", country: "DE", lat: 52.5163, lon: 13.3777, aliases: ["Brandenburger Tor", "Brandenburg Gate"] },
  { street: "Platz der Republik", houseNumber: "1", postcode: "11011", city: "Berlin", country: "DE", lat: 52.5186, lon: 13.3762, aliases: ["Reichstag"] },
  { street: "Marienplatz", houseNumber: "8", postcode: "80331", city: "Munich", country: "DE", lat: 48.1373, lon: 11.5754 },
  { street: "Downing Street", houseNumber: "10", postcode: "SW1A 2AA", city: "London", country: "GB", lat: 51.5034, lon: -0.1276 },
  { street: "Great Russell Street", postcode: "WC1B 3DG", city: "London", country: "GB", lat: 51.5194, lon: -0.127, aliases: ["British Museum"] },
  { street: "Baker Street", houseNumber: "221B", postcode: "NW1 6XE", city: "London", country: "GB", lat: 51.5238, lon: -0.1586 },
  { street: "Avenue Anatole France", houseNumber: "5", postcode: "75007", city: "Paris", country: "FR", lat: 48.8584, lon: 2.2945, aliases: ["Eiffel Tower", "Tour Eiffel"] },
  { street: "Rue de Rivoli", postcode: "75001", city: "Paris", country: "FR", lat: 48.8606, lon: 2.3376, aliases: ["Louvre", "Musée du Louvre"] },
  { street: "Plaza Mayor", postcode: "28012", city: "Madrid", country: "ES", lat: 40.4155, lon: -3.7074 },
  { street: "Carrer de Mallorca", houseNumber: "401", postcode: "08013", city: "Barcelona", country: "ES", lat: 41.4036, lon: 2.1744, aliases: ["Sagrada Familia", "Sagrada Família"] },
  { street: "Piazza del Colosseo", houseNumber: "1", postcode: "00184", city: "Rome", country: "IT", lat: 41.8902, lon: 12.4922, aliases: ["Colosseum", "Colosseo"] },
  { street: "Piazza del Duomo", postcode: "20122", city: "Milan", country: "IT", lat: 45.4641, lon: 9.1919 },
  { street: "Museumstraat", houseNumber: "1", postcode: "1071 XX", city: "Amsterdam", country: "NL", lat: 52.36, lon: 4.8852, aliases: ["Rijksmuseum"] },
  { street: "Stephansplatz", houseNumber: "3", postcode: "1010", city: "Vienna", country: "AT", lat: 48.2085, lon: 16.3731 },
  { street: "Bahnhofplatz", postcode: "8001", city: "Zurich", country: "CH", lat: 47.3779, lon: 8.5403 },
  { street: "Praça do Comércio", postcode: "1100-148", city: "Lisbon", country: "PT", lat: 38.7075, lon: -9.1364 },
  { street: "Pennsylvania Avenue NW", houseNumber: "1600", postcode: "20500", city: "Washington", country: "US", lat: 38.8977, lon: -77.0365, aliases: ["White House"] },
  { street: "Fifth Avenue", houseNumber: "350", postcode: "10118", city: "New York", country: "US", lat: 40.7484, lon: -73.9857, aliases: ["Empire State Building"] },
  { street: "Golden Gate Bridge", postcode: "94129", city: "San Francisco", country: "US", lat: 37.8199, lon: -122.4783 },
  { street: "Front Street West", houseNumber: "290", postcode: "M5V 2T6", city: "Toronto", country: "CA", lat: 43.6426, lon: -79.3871, aliases: ["CN Tower"] },
  { street: "Shibakoen", houseNumber: "4-2-8", postcode: "105-0011", city: "Tokyo", country: "JP", lat: 35.6586, lon: 139.7454, aliases: ["Tokyo Tower"] },
  { street: "Bennelong Point", postcode: "2000", city: "Sydney", country: "AU", lat: -33.8568, lon: 151.2153, aliases: ["Sydney Opera House", "Opera House"] },
];

/** When the demo gazetteer was last edited (Geocodr's free status answers it as its index build date). */
export const GAZETTEER_BUILT_AT = "2026-12-01T00:00:00.000Z";

/** The assets the demo price model knows: a base USD price and a daily volume it moves around. */
export const ASSETS: Readonly<Record<string, { name: string; baseUsd: number; volumeUsd: number }>> = {
  BTC: { name: "Bitcoin", baseUsd: 91_250, volumeUsd: 28_000_000_000 },
  ETH: { name: "Ether", baseUsd: 3_120, volumeUsd: 14_500_000_000 },
  SOL: { name: "Solana", baseUsd: 142.5, volumeUsd: 3_100_000_000 },
  USDC: { name: "USD Coin", baseUsd: 1, volumeUsd: 6_800_000_000 },
  USDT: { name: "Tether", baseUsd: 1, volumeUsd: 52_000_000_000 },
  BNB: { name: "BNB", baseUsd: 610, volumeUsd: 1_600_000_000 },
  XRP: { name: "XRP", baseUsd: 2.18, volumeUsd: 4_200_000_000 },
  ADA: { name: "Cardano", baseUsd: 0.71, volumeUsd: 620_000_000 },
  DOGE: { name: "Dogecoin", baseUsd: 0.32, volumeUsd: 1_900_000_000 },
  AVAX: { name: "Avalanche", baseUsd: 27.4, volumeUsd: 410_000_000 },
  LINK: { name: "Chainlink", baseUsd: 18.6, volumeUsd: 520_000_000 },
  DOT: { name: "Polkadot", baseUsd: 5.9, volumeUsd: 230_000_000 },
};

export interface WebPage {
  title: string;
  link: string;
  snippet: string;
  keywords: string;
}

/** Serpwire's demo index: pages on the reserved `.example` domain, so no result names a real page. */
export const WEB: readonly WebPage[] = [
  { title: "The best espresso grinders of 2026, tested", link: "https://brewlab.example/reviews/espresso-grinders-2026", snippet: "We pulled 400 shots through eleven burr grinders; the flat-burr models held their grind setting best.", keywords: "espresso grinder burr coffee review best 2026" },
  { title: "Flat or conical burrs: which espresso grinder to buy", link: "https://homebarista.example/guides/flat-vs-conical-burrs", snippet: "Conical burrs are quieter and forgiving; flat burrs give a more even particle size for light roasts.", keywords: "espresso grinder burr conical flat coffee guide" },
  { title: "Dialling in espresso: grind size, dose and time", link: "https://homebarista.example/guides/dialling-in", snippet: "Start at 18 g in, 36 g out in 28 seconds, then change only the grind until the shot tastes balanced.", keywords: "espresso grind dose shot coffee recipe" },
  { title: "Hand grinders for espresso under $200", link: "https://brewlab.example/reviews/hand-grinders", snippet: "Three manual grinders that reach espresso fineness without a motor, and the one we would travel with.", keywords: "espresso grinder hand manual coffee cheap best" },
  { title: "How to clean a coffee grinder", link: "https://cafecare.example/grinder-cleaning", snippet: "Brush the burrs weekly and run cleaning tablets monthly; never wash steel burrs with water.", keywords: "coffee grinder clean burr maintenance" },
  { title: "Geocoding explained: from an address to coordinates", link: "https://mapnotes.example/geocoding-explained", snippet: "A geocoder parses an address, matches it to a gazetteer and returns ranked candidates with a confidence.", keywords: "geocoding address coordinates latitude longitude api maps" },
  { title: "Reverse geocoding and why radius matters", link: "https://mapnotes.example/reverse-geocoding", snippet: "Reverse lookups return the nearest known address; a small radius avoids answering with a street far away.", keywords: "reverse geocoding coordinates address radius maps" },
  { title: "Berlin travel guide: Alexanderplatz to the Brandenburg Gate", link: "https://citywalks.example/berlin", snippet: "A two-hour walk from the TV tower on Alexanderplatz along Unter den Linden to Pariser Platz.", keywords: "berlin travel guide alexanderplatz brandenburg gate walk" },
  { title: "Paris in three days", link: "https://citywalks.example/paris", snippet: "The Louvre in the morning, the Seine at noon and the Eiffel Tower at dusk, with where to eat between.", keywords: "paris travel guide eiffel tower louvre itinerary" },
  { title: "What is HTTP 402 Payment Required?", link: "https://webstatus.example/402", snippet: "The long-reserved status code now carries machine payments: the server names a price, the client pays and retries.", keywords: "http 402 payment required status code x402 api" },
  { title: "Pay-per-call APIs for AI agents", link: "https://agentstack.example/pay-per-call", snippet: "Agents can pay for each API call in stablecoins with no account or key; the answer arrives after settlement.", keywords: "api pay per call agents x402 mpp stablecoin usdc payments" },
  { title: "Speech-to-text accuracy: word error rate in practice", link: "https://voicebench.example/wer", snippet: "Word error rate counts substitutions, deletions and insertions; speaker labels need their own measure.", keywords: "speech to text transcription accuracy word error rate diarization" },
  { title: "Summarisation: extractive or abstractive?", link: "https://textlab.example/summarisation", snippet: "Extractive summaries pick sentences from the text; abstractive ones write new sentences and can invent facts.", keywords: "summarisation summarization summary text extractive abstractive nlp" },
  { title: "Bitcoin price history, explained", link: "https://coinnotes.example/bitcoin-history", snippet: "From a few cents in 2010 to six figures: the halvings, the cycles and what volume-weighted prices mean.", keywords: "bitcoin btc price history crypto" },
  { title: "What is a stablecoin?", link: "https://coinnotes.example/stablecoins", snippet: "A token meant to hold one dollar, backed by reserves; USDC publishes monthly attestations of its reserves.", keywords: "stablecoin usdc usdt dollar crypto" },
  { title: "Sourdough for beginners", link: "https://breadbook.example/sourdough", snippet: "Feed the starter twice a day for a week; a ripe starter doubles in four to six hours.", keywords: "sourdough bread baking starter recipe" },
];

export interface NewsItem {
  title: string;
  link: string;
  source: string;
  publishedAt: string;
  keywords: string;
}

export const NEWS: readonly NewsItem[] = [
  { title: "Grinder makers race to quieter flat burrs", link: "https://dailybrew.example/news/quiet-flat-burrs", source: "Daily Brew", publishedAt: "2026-11-28T09:00:00Z", keywords: "espresso grinder coffee burr" },
  { title: "Coffee prices ease after a record year", link: "https://marketwire.example/news/coffee-prices-ease", source: "Market Wire", publishedAt: "2026-11-30T14:20:00Z", keywords: "coffee prices espresso market" },
  { title: "Agents now pay for a million API calls a day over HTTP 402", link: "https://agentstack.example/news/402-volume", source: "Agent Stack", publishedAt: "2026-12-01T08:30:00Z", keywords: "http 402 api agents payments x402 usdc" },
  { title: "Bitcoin steadies above $90,000", link: "https://marketwire.example/news/bitcoin-steadies", source: "Market Wire", publishedAt: "2026-12-02T16:45:00Z", keywords: "bitcoin btc price crypto market" },
  { title: "Berlin opens its new Alexanderplatz tram hub", link: "https://citydesk.example/news/berlin-tram-hub", source: "City Desk", publishedAt: "2026-11-26T11:10:00Z", keywords: "berlin alexanderplatz tram transport" },
  { title: "Speech models close the gap on noisy phone audio", link: "https://voicebench.example/news/noisy-audio", source: "Voice Bench", publishedAt: "2026-11-22T10:00:00Z", keywords: "speech to text transcription audio models" },
];

export interface ImageItem {
  title: string;
  imageUrl: string;
  thumbnailUrl: string;
  width: number;
  height: number;
  keywords: string;
}

export const IMAGES: readonly ImageItem[] = [
  { title: "Flat-burr espresso grinder on a counter", imageUrl: "https://img.brewlab.example/grinder-flat.jpg", thumbnailUrl: "https://img.brewlab.example/thumbs/grinder-flat.jpg", width: 1600, height: 1067, keywords: "espresso grinder burr coffee" },
  { title: "Conical burr set, close up", imageUrl: "https://img.homebarista.example/conical-burr.jpg", thumbnailUrl: "https://img.homebarista.example/thumbs/conical-burr.jpg", width: 1200, height: 1200, keywords: "grinder burr conical coffee" },
  { title: "An espresso shot pulling into a glass", imageUrl: "https://img.homebarista.example/shot.jpg", thumbnailUrl: "https://img.homebarista.example/thumbs/shot.jpg", width: 1080, height: 1350, keywords: "espresso shot coffee" },
  { title: "The TV tower over Alexanderplatz, Berlin", imageUrl: "https://img.citywalks.example/berlin-tv-tower.jpg", thumbnailUrl: "https://img.citywalks.example/thumbs/berlin-tv-tower.jpg", width: 2048, height: 1365, keywords: "berlin alexanderplatz tv tower" },
  { title: "The Eiffel Tower at dusk", imageUrl: "https://img.citywalks.example/eiffel-dusk.jpg", thumbnailUrl: "https://img.citywalks.example/thumbs/eiffel-dusk.jpg", width: 1365, height: 2048, keywords: "paris eiffel tower" },
];

export interface Offer {
  title: string;
  merchant: string;
  price: number;
  currency: string;
  link: string;
  keywords: string;
}

export const OFFERS: readonly Offer[] = [
  { title: "Flat-burr espresso grinder, 64 mm", merchant: "Brew Supply", price: 449, currency: "USD", link: "https://brewsupply.example/p/flat-64", keywords: "espresso grinder burr flat coffee" },
  { title: "Conical burr grinder, 40 settings", merchant: "Kitchen Depot", price: 189, currency: "USD", link: "https://kitchendepot.example/p/conical-40", keywords: "espresso grinder burr conical coffee" },
  { title: "Manual espresso hand grinder", merchant: "Brew Supply", price: 159, currency: "USD", link: "https://brewsupply.example/p/hand-grinder", keywords: "espresso grinder hand manual coffee" },
  { title: "Espresso tamper, 58 mm", merchant: "Kitchen Depot", price: 29.9, currency: "USD", link: "https://kitchendepot.example/p/tamper-58", keywords: "espresso tamper coffee" },
  { title: "Grinder cleaning tablets (pack of 3)", merchant: "Cafe Care", price: 12.5, currency: "USD", link: "https://cafecare.example/p/tablets", keywords: "grinder cleaning coffee" },
];

/** Scribe's languages (its free `/v1/languages`); `translate` marks the ones it translates into English from. */
export const LANGUAGES: ReadonlyArray<{ code: string; name: string; translate: boolean }> = [
  { code: "en", name: "English", translate: false },
  { code: "es", name: "Spanish", translate: true },
  { code: "de", name: "German", translate: true },
  { code: "fr", name: "French", translate: true },
  { code: "it", name: "Italian", translate: true },
  { code: "pt", name: "Portuguese", translate: true },
  { code: "nl", name: "Dutch", translate: true },
  { code: "ja", name: "Japanese", translate: true },
];

/** The lines Scribe's demo transcripts are drawn from (an interview about the service itself). */
export const SCRIPT: readonly string[] = [
  "Thanks for joining us today.",
  "Happy to be here.",
  "Let's start with how the service is paid for.",
  "Every call is paid on its own, in USDC, with no account.",
  "And what does the buyer get back?",
  "Timestamped segments, with a speaker label on each.",
  "How long does a thirty second file take?",
  "A few seconds, most of it waiting for the file.",
  "What happens when the audio is noisy?",
  "The text gets shorter and the timestamps stay honest.",
  "Any plans for the next release?",
  "More languages, and word-level timestamps.",
];
