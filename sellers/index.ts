export { startFixtureSellers, fixtureListings, FIXTURE_SELLERS, type FixtureServer, type StartOptions } from "./server";
export { listingFor, openApi, wellKnownX402 } from "./documents";
export type { FixtureSeller, FixtureEndpoint, SellerRequest, SellerDescription, EndpointDescription } from "./types";
