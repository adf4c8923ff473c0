import CatalogPage from "./catalog/page";

export const dynamic = "force-dynamic";

export default CatalogPage;
