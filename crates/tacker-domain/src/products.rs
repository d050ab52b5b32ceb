//! `VnfProductsFromProviders`: the product part of SOL003 and SOL005 subscription
//! filters (LCM instance filters and package filters share it).

use serde::{Deserialize, Serialize};

/// Products of one provider.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProductsFromProvider {
    /// Provider.
    pub vnf_provider: String,
    /// Products (empty: all of the provider's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnf_products: Vec<Product>,
}

/// A product and, optionally, versions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Product {
    /// Product name.
    pub vnf_product_name: String,
    /// Versions (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<Version>,
}

/// A software version and, optionally, VNFD versions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Version {
    /// Software version.
    pub vnf_software_version: String,
    /// VNFD versions (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnfd_versions: Vec<String>,
}

/// What a VNFD says of its product.
#[derive(Debug, Clone, Copy)]
pub struct ProductOf<'a> {
    /// `vnfProvider`.
    pub provider: &'a str,
    /// `vnfProductName`.
    pub product_name: &'a str,
    /// `vnfSoftwareVersion`.
    pub software_version: &'a str,
    /// `vnfdVersion`.
    pub vnfd_version: &'a str,
}

/// Whether `filter` (empty: anything) admits product `p`.
pub fn admits(filter: &[ProductsFromProvider], p: ProductOf<'_>) -> bool {
    filter.is_empty()
        || filter.iter().any(|from| {
            from.vnf_provider == p.provider
                && (from.vnf_products.is_empty()
                    || from.vnf_products.iter().any(|prod| {
                        prod.vnf_product_name == p.product_name
                            && (prod.versions.is_empty()
                                || prod.versions.iter().any(|v| {
                                    v.vnf_software_version == p.software_version
                                        && (v.vnfd_versions.is_empty()
                                            || v.vnfd_versions.iter().any(|d| d == p.vnfd_version))
                                }))
                    }))
        })
}
