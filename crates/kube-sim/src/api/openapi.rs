//! `/openapi/v2`: the API's OpenAPI document, which kubectl-style clients (Helm's
//! install and upgrade, unless told `--disable-openapi-validation`) download before they
//! validate objects on the client side. The simulator's document declares no types:
//! those clients skip the validation of a kind their document does not define, and the
//! simulator checks what is written itself. Clients ask for gnostic's protobuf encoding
//! (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`) and get it; any other
//! client gets the same document as JSON.

use actix_web::{HttpRequest, HttpResponse};
use prost::Message;
use serde_json::json;

/// What names the protobuf media type of an OpenAPI v2 document, however clients spell
/// its version (`@v1.0` or `.v1.0`).
const PROTOBUF_FAMILY: &str = "com.github.proto-openapi.spec.v2";
/// ... and as the API server answers it (Go's MIME parser refuses the `@`).
const PROTOBUF_ANSWERED: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// gnostic's `openapi_v2.Info`: title and version.
#[derive(Clone, PartialEq, Message)]
struct Info {
    #[prost(string, tag = "1")]
    title: String,
    #[prost(string, tag = "2")]
    version: String,
}

/// gnostic's `openapi_v2.Paths`, empty.
#[derive(Clone, PartialEq, Message)]
struct Paths {}

/// gnostic's `openapi_v2.Document`: `swagger`, `info` and `paths`, all it requires.
#[derive(Clone, PartialEq, Message)]
struct Document {
    #[prost(string, tag = "1")]
    swagger: String,
    #[prost(message, optional, tag = "2")]
    info: Option<Info>,
    #[prost(message, optional, tag = "8")]
    paths: Option<Paths>,
}

const TITLE: &str = "kube-sim";
const VERSION: &str = "v1.32.0";

/// The document.
fn document() -> Document {
    Document {
        swagger: "2.0".into(),
        info: Some(Info {
            title: TITLE.into(),
            version: VERSION.into(),
        }),
        paths: Some(Paths {}),
    }
}

/// `GET /openapi/v2`.
pub async fn v2(req: HttpRequest) -> HttpResponse {
    let accept = req
        .headers()
        .get("accept")
        .and_then(|a| a.to_str().ok())
        .unwrap_or_default();
    // `...spec.v2@v1.0+protobuf` or `...spec.v2.v1.0+protobuf`.
    if accept.contains(PROTOBUF_FAMILY) {
        return HttpResponse::Ok()
            .content_type(PROTOBUF_ANSWERED)
            .body(document().encode_to_vec());
    }
    HttpResponse::Ok().json(json!({
        "swagger": "2.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": {},
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protobuf_document_reads_back() {
        let back = Document::decode(document().encode_to_vec().as_slice()).unwrap();
        assert_eq!(back.swagger, "2.0");
        assert_eq!(back.info.unwrap().title, TITLE);
    }
}
