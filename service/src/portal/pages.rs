//! The portal's list answers: one page of a resource with where it lies (`pagination`) and, for
//! some, links to related resources; and the catalog as the portal shows it.

use serde::Serialize;
use utoipa::ToSchema;

use super::views::{CreativeAsset, Recipe, Smartlist, SmartlistAsset};

/// The pagination of a portal list.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Pagination {
    /// This page, from 1.
    pub page: i64,
    /// Items per page.
    pub limit: i64,
    /// Items on every page.
    pub total: i64,
    /// Pages (`ceil(total / limit)`).
    pub total_pages: i64,
}

impl Pagination {
    /// Page `page` (from 1) of `limit` items, of `total` items in all.
    pub fn new(page: i64, limit: i64, total: i64) -> Pagination {
        Pagination { page, limit, total, total_pages: (total + limit - 1) / limit }
    }
}

/// The items of page `page` (from 1) of `limit` items.
pub fn page_of<T>(rows: Vec<T>, page: i64, limit: i64) -> Vec<T> {
    rows.into_iter()
        .skip((page - 1).saturating_mul(limit).clamp(0, i64::from(u32::MAX)) as usize)
        .take(limit as usize)
        .collect()
}

/// Declares a portal page type.
macro_rules! page {
    ($name:ident, $item:ty, $what:literal) => {
        #[doc = concat!("A page of ", $what, ".")]
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct $name {
            /// This page's items.
            pub data: Vec<$item>,
            /// Where this page lies.
            pub pagination: Pagination,
        }

        impl $name {
            /// Page `page` of `limit` items out of all of `items`.
            pub fn of(items: Vec<$item>, page: i64, limit: i64) -> $name {
                let total = items.len() as i64;
                $name { data: page_of(items, page, limit), pagination: Pagination::new(page, limit, total) }
            }
        }
    };
    ($name:ident, $item:ty, $what:literal, $links:ty) => {
        #[doc = concat!("A page of ", $what, ".")]
        #[derive(Debug, Clone, Serialize, ToSchema)]
        pub struct $name {
            /// This page's items.
            pub data: Vec<$item>,
            /// Where this page lies.
            pub pagination: Pagination,
            /// Related resources.
            pub _links: $links,
        }
    };
}

page!(CatalogPage, PortalCatalog, "catalogs");
page!(SmartlistPage, Smartlist, "published smartlists", CatalogsLink);
page!(SmartlistAssetPage, SmartlistAsset, "a smartlist's members, in position order", SmartlistLink);
page!(RecipePage, Recipe, "published recipes");
page!(CreativeAssetPage, CreativeAsset, "creative assets of published recipes");

/// Where the catalogs are listed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogsLink {
    /// The catalog list.
    pub catalogs: String,
}

/// The smartlist of a member page.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SmartlistLink {
    /// The smartlist.
    pub smartlist: String,
}

/// A catalog as the portal shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PortalCatalog {
    /// Catalog id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Always `active`.
    pub status: String,
    /// The organisation's name.
    pub account: String,
    /// Created (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Last changed (RFC 3339).
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// The catalog and its smartlists.
    pub _links: CatalogLinks,
}

/// Links of a portal catalog.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogLinks {
    /// This catalog.
    #[serde(rename = "self")]
    pub self_: String,
    /// Its smartlists.
    pub smartlists: String,
}

impl PortalCatalog {
    /// Catalog `id` of the organisation `account`, created at `created`.
    pub fn new(id: i64, name: &str, account: &str, created: &str) -> PortalCatalog {
        PortalCatalog {
            id,
            name: name.into(),
            status: "active".into(),
            account: account.into(),
            created_at: created.into(),
            updated_at: created.into(),
            _links: CatalogLinks {
                self_: format!("/catalogs/{id}"),
                smartlists: format!("/smartlists/?catalogId={id}"),
            },
        }
    }
}
