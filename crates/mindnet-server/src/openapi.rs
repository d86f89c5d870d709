//! The OpenAPI document: `/health` and `/ready` written here, every other
//! route from the operation table (its request, response, parameters and
//! failures derived from each operation's declaration).

use crate::paths;
use axum::response::{IntoResponse, Response};
use mindnet_app::api::HealthResponse;
use mindnet_app::operation::{Method, Operation, failures};
use mindnet_app::ops::{self, Visit};
use mindnet_app::{AppError, ErrorBody, ErrorCode};
use utoipa::OpenApi;
use utoipa::openapi::path::OperationBuilder;
use utoipa::openapi::{HttpMethod, ResponseBuilder};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "mindnet",
        description = "A typed knowledge graph of an Obsidian vault: hybrid retrieval with explanations, causal chains, drafts."
    ),
    components(schemas(ErrorBody, AppError, ErrorCode))
)]
struct ApiDoc;

const READY_SUMMARY: &str = "Whether the server takes work: 200 once the index is open, else 503.";
const READY_DESCRIPTION: &str =
    "`/health` says the process lives (200 from the first moment); this says
whether every operation answers: a load balancer's readiness probe, or
a client that has just started the server. 503 while the index opens,
or when it could not be opened.";

/// The OpenAPI document of the API.
pub fn openapi_json() -> String {
    let mut doc = ApiDoc::openapi();
    let mut document = Document { doc: &mut doc };
    document.probes();
    ops::visit(&mut document);
    doc.to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// `GET /openapi.json`.
pub async fn openapi() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        openapi_json(),
    )
        .into_response()
}

/// Adds each operation's route to the OpenAPI document, and its request
/// and response types to the schemas.
struct Document<'a> {
    doc: &'a mut utoipa::openapi::OpenApi,
}

impl Document<'_> {
    fn schema<T: utoipa::ToSchema>(&mut self) -> utoipa::openapi::Ref {
        let mut all = vec![(T::name().to_string(), T::schema())];
        T::schemas(&mut all);
        let components = self.doc.components.get_or_insert_with(Default::default);
        for (name, schema) in all {
            components.schemas.entry(name).or_insert(schema);
        }
        utoipa::openapi::Ref::from_schema_name(T::name())
    }
}

fn json(schema: utoipa::openapi::Ref) -> utoipa::openapi::Content {
    utoipa::openapi::ContentBuilder::new()
        .schema(Some(schema))
        .build()
}

impl Visit for Document<'_> {
    fn op<O: Operation>(&mut self) {
        use utoipa::openapi::{Required, request_body};
        let route = O::ROUTE;
        let ok = self.schema::<O::Response>();
        let mut op = OperationBuilder::new()
            .tags(Some(Vec::<String>::new()))
            .summary(route.summary)
            .operation_id(Some(O::NAME))
            .response(
                "200",
                ResponseBuilder::new()
                    .description("")
                    .content("application/json", json(ok)),
            );
        let params = parameters::<O>();
        if !params.is_empty() {
            op = op.parameters(Some(params));
        }
        if route.method == Method::Post {
            let body = self.schema::<O::Request>();
            op = op.request_body(Some(
                request_body::RequestBodyBuilder::new()
                    .content("application/json", json(body))
                    .required(Some(Required::True))
                    .build(),
            ));
        }
        for code in failures::<O>() {
            let error = self.schema::<ErrorBody>();
            op = op.response(
                code.http_status().to_string(),
                ResponseBuilder::new()
                    .description("")
                    .content("application/json", json(error)),
            );
        }
        let method = match route.method {
            Method::Get => HttpMethod::Get,
            Method::Post => HttpMethod::Post,
        };
        let path = route.path.replace("{*", "{");
        self.doc.paths.add_path_operation(path, vec![method], op);
    }
}

/// The parameters of a `GET` operation: each field of its request, in the
/// path when the route names it (`{field}`), else in the query; required
/// when the request requires it; its doc comment as its description.
fn parameters<O: Operation>() -> Vec<utoipa::openapi::path::Parameter> {
    use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
    use utoipa::openapi::{RefOr, Required, Schema};
    let route = O::ROUTE;
    if route.method != Method::Get {
        return Vec::new();
    }
    let RefOr::T(Schema::Object(request)) = <O::Request as utoipa::PartialSchema>::schema() else {
        return Vec::new();
    };
    let mut params = Vec::new();
    for (name, schema) in request.properties {
        let in_path = route.path.contains(&format!("{{{name}}}"))
            || route.path.contains(&format!("{{*{name}}}"));
        let (description, schema) = undocumented(schema);
        let required = in_path || request.required.contains(&name);
        params.push(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(if in_path {
                    ParameterIn::Path
                } else {
                    ParameterIn::Query
                })
                .description(description)
                .required(if required {
                    Required::True
                } else {
                    Required::False
                })
                .schema(Some(schema))
                .build(),
        );
    }
    params
}

/// A property's description taken out of its schema (a parameter carries
/// it beside the schema), and `null` out of its types: a parameter left
/// out is absent, never null.
fn undocumented(
    schema: utoipa::openapi::RefOr<utoipa::openapi::Schema>,
) -> (
    Option<String>,
    utoipa::openapi::RefOr<utoipa::openapi::Schema>,
) {
    use utoipa::openapi::schema::{SchemaType, Type};
    use utoipa::openapi::{RefOr, Schema};
    match schema {
        RefOr::T(Schema::Object(mut o)) => {
            let description = o.description.take();
            if let SchemaType::Array(types) = &o.schema_type {
                let types: Vec<Type> = types
                    .iter()
                    .filter(|t| **t != Type::Null)
                    .cloned()
                    .collect();
                o.schema_type = match types.as_slice() {
                    [one] => SchemaType::Type(one.clone()),
                    _ => SchemaType::Array(types),
                };
            }
            (description, RefOr::T(Schema::Object(o)))
        }
        other => (None, other),
    }
}

impl Document<'_> {
    /// `/health` and `/ready`: not operations of the index, but of the
    /// process that serves it.
    fn probes(&mut self) {
        let health = self.schema::<HealthResponse>();
        let error = self.schema::<ErrorBody>();
        let answer = |schema: utoipa::openapi::Ref| {
            ResponseBuilder::new()
                .description("")
                .content("application/json", json(schema))
        };
        let op = OperationBuilder::new()
            .tags(Some(Vec::<String>::new()))
            .operation_id(Some("health"))
            .response("200", answer(health.clone()));
        self.doc
            .paths
            .add_path_operation(paths::HEALTH, vec![HttpMethod::Get], op);
        let op = OperationBuilder::new()
            .tags(Some(Vec::<String>::new()))
            .summary(Some(READY_SUMMARY))
            .description(Some(READY_DESCRIPTION))
            .operation_id(Some("ready"))
            .response("200", answer(health))
            .response("503", answer(error));
        self.doc
            .paths
            .add_path_operation(paths::READY, vec![HttpMethod::Get], op);
    }
}
