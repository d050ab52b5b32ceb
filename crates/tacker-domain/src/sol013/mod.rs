//! The SOL013 query language for lists: attribute-based filters (clause 5.2), attribute
//! selectors (clause 5.3) and paging markers (clause 5.4), evaluated over the JSON
//! representation a resource is served as.

mod filter;
mod paging;
mod selector;

pub use filter::{Filter, MAX_NESTED_ARRAYS, Op};
pub use paging::{Marker, Page, paginate};
pub use selector::Selector;
