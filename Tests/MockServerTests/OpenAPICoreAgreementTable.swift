/// The cases Airlock and openapi-core judge (``OpenAPICoreAgreementTests``): the OpenAPI
/// Initiative's examples, and a document of this table's own (`orders.yaml`, below) for the rules
/// those examples lack: `enum`, `additionalProperties: false`, a required query parameter and
/// header, lengths and bounds, `nullable`, a required response header.
extension AgreementCase {
    static let ownDocument = "orders.yaml"
    static let documents = ["v3.0/petstore.yaml", "v3.0/petstore-expanded.yaml", "v3.0/uspto.yaml", "v3.0/api-with-examples.yaml", ownDocument]

    static let ordersYAML = """
        openapi: 3.0.3
        info:
          title: Orders
          version: "1"
        servers:
          - url: https://api.example.test/v1
        paths:
          /orders:
            get:
              operationId: listOrders
              parameters:
                - name: status
                  in: query
                  required: true
                  schema: {type: string, enum: [open, closed]}
                - name: page
                  in: query
                  schema: {type: integer, minimum: 1}
                - name: X-Request-Id
                  in: header
                  required: true
                  schema: {type: string, minLength: 8}
              responses:
                '200':
                  description: The orders.
                  content:
                    application/json:
                      schema:
                        type: array
                        items: {$ref: '#/components/schemas/Order'}
            post:
              operationId: createOrder
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/NewOrder'}
              responses:
                '201':
                  description: Created.
                  headers:
                    Location:
                      required: true
                      schema: {type: string}
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Order'}
                '422':
                  description: The order breaks the rules.
          /orders/{orderId}:
            get:
              operationId: getOrder
              parameters:
                - name: orderId
                  in: path
                  required: true
                  schema: {type: integer, minimum: 1}
              responses:
                '200':
                  description: The order.
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Order'}
                '404':
                  description: No such order.
        components:
          schemas:
            NewOrder:
              type: object
              additionalProperties: false
              required: [item, quantity]
              properties:
                item: {type: string, minLength: 1, maxLength: 20}
                quantity: {type: integer, minimum: 1, maximum: 99}
                note: {type: string, nullable: true}
            Order:
              type: object
              additionalProperties: false
              required: [id, item, quantity, status]
              properties:
                id: {type: integer}
                item: {type: string}
                quantity: {type: integer}
                status: {type: string, enum: [open, closed]}
                note: {type: string, nullable: true}
        """

    private static let json = ["Content-Type": "application/json"]
    private static let form = ["Content-Type": "application/x-www-form-urlencoded"]

    static let all: [AgreementCase] = petstore + petstoreExpanded + uspto + apiWithExamples + orders

    // MARK: petstore.yaml

    private static let petstore: [AgreementCase] = {
        let d = "v3.0/petstore.yaml", p = "http://petstore.swagger.io/v1"
        let rex = #"{"id":1,"name":"Rex"}"#
        return [
            AgreementCase(document: d, name: "listPets", method: "GET", url: p + "/pets?limit=10",
                          response: Response(status: 200, headers: json, body: "[\(rex)]")),
            AgreementCase(document: d, name: "listPets with x-next", method: "GET", url: p + "/pets",
                          response: Response(status: 200, headers: json.merging(["x-next": "/v1/pets?page=2"]) { $1 }, body: "[]")),
            AgreementCase(document: d, name: "limit over its maximum", method: "GET", url: p + "/pets?limit=500"),
            AgreementCase(document: d, name: "limit not a number", method: "GET", url: p + "/pets?limit=ten"),
            AgreementCase(document: d, name: "limit a fraction", method: "GET", url: p + "/pets?limit=1.5"),
            AgreementCase(document: d, name: "listPets answer without a name", method: "GET", url: p + "/pets",
                          response: Response(status: 200, headers: json, body: #"[{"id":1}]"#)),
            AgreementCase(document: d, name: "listPets answer with a string id", method: "GET", url: p + "/pets",
                          response: Response(status: 200, headers: json, body: #"[{"id":"1","name":"Rex"}]"#)),
            AgreementCase(document: d, name: "listPets answer over maxItems", method: "GET", url: p + "/pets",
                          response: Response(status: 200, headers: json, body: "[" + Array(repeating: rex, count: 101).joined(separator: ",") + "]")),
            AgreementCase(document: d, name: "createPets", method: "POST", url: p + "/pets", headers: json, body: rex,
                          response: Response(status: 201)),
            AgreementCase(document: d, name: "createPets with an extra property", method: "POST", url: p + "/pets", headers: json,
                          body: #"{"id":1,"name":"Rex","colour":"brown"}"#),
            AgreementCase(document: d, name: "createPets without its required body", method: "POST", url: p + "/pets"),
            AgreementCase(document: d, name: "createPets without a name", method: "POST", url: p + "/pets", headers: json, body: #"{"id":1}"#),
            AgreementCase(document: d, name: "createPets with a number for a name", method: "POST", url: p + "/pets", headers: json, body: #"{"id":1,"name":7}"#),
            AgreementCase(document: d, name: "createPets as text/plain", method: "POST", url: p + "/pets", headers: ["Content-Type": "text/plain"], body: rex),
            AgreementCase(document: d, name: "createPets with a body that is not JSON", method: "POST", url: p + "/pets", headers: json, body: #"{"id":"#),
            AgreementCase(document: d, name: "showPetById", method: "GET", url: p + "/pets/42",
                          response: Response(status: 200, headers: json, body: rex)),
            AgreementCase(document: d, name: "showPetById answered by default", method: "GET", url: p + "/pets/42",
                          response: Response(status: 404, headers: json, body: #"{"code":404,"message":"no such pet"}"#)),
            AgreementCase(document: d, name: "default answer without a message", method: "GET", url: p + "/pets/42",
                          response: Response(status: 500, headers: json, body: #"{"code":500}"#)),
            AgreementCase(document: d, name: "showPetById answered as text/plain", method: "GET", url: p + "/pets/42",
                          response: Response(status: 200, headers: ["Content-Type": "text/plain"], body: "Rex")),
            AgreementCase(document: d, name: "a path the document lacks", method: "GET", url: p + "/owners"),
            AgreementCase(document: d, name: "a method /pets lacks", method: "DELETE", url: p + "/pets"),
        ]
    }()

    // MARK: petstore-expanded.yaml

    private static let petstoreExpanded: [AgreementCase] = {
        let d = "v3.0/petstore-expanded.yaml", p = "https://petstore.swagger.io/v2"
        return [
            AgreementCase(document: d, name: "findPets with tags and limit", method: "GET", url: p + "/pets?tags=dog&tags=cat&limit=5",
                          response: Response(status: 200, headers: json, body: #"[{"id":1,"name":"Rex","tag":"dog"}]"#)),
            AgreementCase(document: d, name: "findPets with a limit not a number", method: "GET", url: p + "/pets?limit=x"),
            AgreementCase(document: d, name: "findPets with an int64 id at the end of its range", method: "GET", url: p + "/pets/9223372036854775807"),
            AgreementCase(document: d, name: "findPets with an id just beyond int64", method: "GET", url: p + "/pets/9223372036854775808"),
            AgreementCase(document: d, name: "findPets with limit given twice", method: "GET", url: p + "/pets?limit=1&limit=x",
                          disagreement: Disagreement(
                              airlock: Verdicts(request: false), openAPICore: Verdicts(request: true),
                              reason: """
                                  `limit` is one integer (form style). openapi-core reads the first of repeated values and ignores \
                                  the rest (`x` here); Airlock reads them as the list they are, which the schema refuses, as \
                                  schemathesis expects of a request that gives one value twice
                                  """
                          )),
            AgreementCase(document: d, name: "findPets answer without an id (allOf)", method: "GET", url: p + "/pets",
                          response: Response(status: 200, headers: json, body: #"[{"name":"Rex"}]"#)),
            AgreementCase(document: d, name: "addPet", method: "POST", url: p + "/pets", headers: json, body: #"{"name":"Rex"}"#,
                          response: Response(status: 200, headers: json, body: #"{"id":1,"name":"Rex"}"#)),
            AgreementCase(document: d, name: "addPet without a name", method: "POST", url: p + "/pets", headers: json, body: #"{"tag":"dog"}"#),
            AgreementCase(document: d, name: "find pet by id", method: "GET", url: p + "/pets/7",
                          response: Response(status: 200, headers: json, body: #"{"id":7,"name":"Rex"}"#)),
            AgreementCase(document: d, name: "find pet by an id not a number", method: "GET", url: p + "/pets/abc"),
            AgreementCase(document: d, name: "find pet answered with an error whose code is text", method: "GET", url: p + "/pets/7",
                          response: Response(status: 500, headers: json, body: #"{"code":"E1","message":"down"}"#)),
            AgreementCase(document: d, name: "deletePet", method: "DELETE", url: p + "/pets/7", response: Response(status: 204)),
            AgreementCase(document: d, name: "a method /pets/{id} lacks", method: "PUT", url: p + "/pets/7", headers: json, body: #"{"name":"Rex"}"#),
        ]
    }()

    // MARK: uspto.yaml

    private static let uspto: [AgreementCase] = {
        let d = "v3.0/uspto.yaml", p = "https://developer.uspto.gov/ds-api"
        return [
            AgreementCase(document: d, name: "list-data-sets", method: "GET", url: p + "/",
                          response: Response(status: 200, headers: json, body: #"{"total":1,"apis":[{"apiKey":"oa_citations","apiVersionNumber":"v1"}]}"#)),
            AgreementCase(document: d, name: "list-data-sets answer with a text total", method: "GET", url: p + "/",
                          response: Response(status: 200, headers: json, body: #"{"total":"1","apis":[]}"#)),
            AgreementCase(document: d, name: "list-searchable-fields", method: "GET", url: p + "/oa_citations/v1/fields",
                          response: Response(status: 200, headers: json, body: #""fields""#)),
            AgreementCase(document: d, name: "list-searchable-fields not found", method: "GET", url: p + "/oa_citations/v9/fields",
                          response: Response(status: 404, headers: json, body: #""no such data set""#)),
            AgreementCase(document: d, name: "list-searchable-fields answered with a status not listed", method: "GET", url: p + "/oa_citations/v1/fields",
                          response: Response(status: 500, headers: json, body: #""down""#)),
            AgreementCase(document: d, name: "perform-search", method: "POST", url: p + "/oa_citations/v1/records", headers: form, body: "criteria=*:*&start=0&rows=10",
                          response: Response(status: 200, headers: json, body: #"[{"record":{}}]"#)),
            AgreementCase(document: d, name: "perform-search with a start not a number", method: "POST", url: p + "/oa_citations/v1/records", headers: form, body: "criteria=*:*&start=first"),
            AgreementCase(document: d, name: "perform-search without its criteria", method: "POST", url: p + "/oa_citations/v1/records", headers: form, body: "rows=10",
                          disagreement: Disagreement(
                              airlock: Verdicts(request: false), openAPICore: Verdicts(request: true),
                              reason: """
                                  `criteria` is required and has a `default`. openapi-core fills a form field's default in before it \
                                  validates (not a JSON body's: {"rows":10} as JSON is invalid to it), so the field is never missing; \
                                  in JSON Schema `default` is an annotation that `required` does not look at, and Airlock reports \
                                  the missing field
                                  """
                          )),
            AgreementCase(document: d, name: "perform-search as JSON", method: "POST", url: p + "/oa_citations/v1/records", headers: json, body: #"{"criteria":"*:*"}"#),
            AgreementCase(document: d, name: "perform-search answer with items not objects", method: "POST", url: p + "/oa_citations/v1/records", headers: form, body: "criteria=*:*",
                          response: Response(status: 200, headers: json, body: "[1]")),
            AgreementCase(document: d, name: "perform-search not found", method: "POST", url: p + "/oa_citations/v1/records", headers: form, body: "criteria=x:y",
                          response: Response(status: 404)),
        ]
    }()

    // MARK: api-with-examples.yaml

    private static let apiWithExamples: [AgreementCase] = {
        let d = "v3.0/api-with-examples.yaml", p = "http://localhost"
        return [
            AgreementCase(document: d, name: "listVersionsv2", method: "GET", url: p + "/",
                          response: Response(status: 200, headers: json, body: #"{"versions":[]}"#)),
            AgreementCase(document: d, name: "listVersionsv2 answered 300", method: "GET", url: p + "/",
                          response: Response(status: 300, headers: json, body: #"{"versions":[]}"#)),
            AgreementCase(document: d, name: "getVersionDetailsv2 answered 203", method: "GET", url: p + "/v2",
                          response: Response(status: 203, headers: json, body: #"{"version":{}}"#)),
            AgreementCase(document: d, name: "getVersionDetailsv2 answered with a status not listed", method: "GET", url: p + "/v2",
                          response: Response(status: 404, headers: json, body: "{}")),
            AgreementCase(document: d, name: "a method / lacks", method: "POST", url: p + "/", headers: json, body: "{}"),
        ]
    }()

    // MARK: orders.yaml (this table's own)

    private static let orders: [AgreementCase] = {
        let d = ownDocument, p = "https://api.example.test/v1"
        let id = ["X-Request-Id": "request-0001"]
        let order = #"{"id":1,"item":"tea","quantity":2,"status":"open"}"#
        let created = json.merging(["Location": "/v1/orders/1"]) { $1 }
        return [
            AgreementCase(document: d, name: "listOrders", method: "GET", url: p + "/orders?status=open&page=2", headers: id,
                          response: Response(status: 200, headers: json, body: "[\(order)]")),
            AgreementCase(document: d, name: "listOrders without its required query parameter", method: "GET", url: p + "/orders", headers: id),
            AgreementCase(document: d, name: "listOrders with a status not in the enum", method: "GET", url: p + "/orders?status=pending", headers: id),
            AgreementCase(document: d, name: "listOrders without its required header", method: "GET", url: p + "/orders?status=open"),
            AgreementCase(document: d, name: "listOrders with a header under its minLength", method: "GET", url: p + "/orders?status=open", headers: ["X-Request-Id": "r1"]),
            AgreementCase(document: d, name: "listOrders with a page under its minimum", method: "GET", url: p + "/orders?status=open&page=0", headers: id),
            AgreementCase(document: d, name: "listOrders answer with a status not in the enum", method: "GET", url: p + "/orders?status=open", headers: id,
                          response: Response(status: 200, headers: json, body: #"[{"id":1,"item":"tea","quantity":2,"status":"pending"}]"#)),
            AgreementCase(document: d, name: "listOrders answer with a property additionalProperties forbids", method: "GET", url: p + "/orders?status=open", headers: id,
                          response: Response(status: 200, headers: json, body: #"[{"id":1,"item":"tea","quantity":2,"status":"open","colour":"green"}]"#)),
            AgreementCase(document: d, name: "createOrder", method: "POST", url: p + "/orders", headers: json, body: #"{"item":"tea","quantity":2}"#,
                          response: Response(status: 201, headers: created, body: order)),
            AgreementCase(document: d, name: "createOrder with a null note (nullable)", method: "POST", url: p + "/orders", headers: json, body: #"{"item":"tea","quantity":2,"note":null}"#),
            AgreementCase(document: d, name: "createOrder with a property additionalProperties forbids", method: "POST", url: p + "/orders", headers: json, body: #"{"item":"tea","quantity":2,"colour":"green"}"#),
            AgreementCase(document: d, name: "createOrder with a quantity over its maximum", method: "POST", url: p + "/orders", headers: json, body: #"{"item":"tea","quantity":100}"#),
            AgreementCase(document: d, name: "createOrder with an item under its minLength", method: "POST", url: p + "/orders", headers: json, body: #"{"item":"","quantity":1}"#),
            AgreementCase(document: d, name: "createOrder with a null item (not nullable)", method: "POST", url: p + "/orders", headers: json, body: #"{"item":null,"quantity":1}"#),
            AgreementCase(document: d, name: "createOrder answer without its required Location header", method: "POST", url: p + "/orders", headers: json, body: #"{"item":"tea","quantity":2}"#,
                          response: Response(status: 201, headers: json, body: order)),
            AgreementCase(document: d, name: "createOrder answered 422", method: "POST", url: p + "/orders", headers: json, body: #"{"item":"tea","quantity":2}"#,
                          response: Response(status: 422)),
            AgreementCase(document: d, name: "getOrder", method: "GET", url: p + "/orders/1",
                          response: Response(status: 200, headers: json, body: order)),
            AgreementCase(document: d, name: "getOrder with an id under its minimum", method: "GET", url: p + "/orders/0"),
            AgreementCase(document: d, name: "getOrder not found", method: "GET", url: p + "/orders/9", response: Response(status: 404)),
            AgreementCase(document: d, name: "getOrder answered with a status not listed", method: "GET", url: p + "/orders/1",
                          response: Response(status: 500, headers: json, body: "{}")),
            AgreementCase(document: d, name: "getOrder answer without its required status", method: "GET", url: p + "/orders/1",
                          response: Response(status: 200, headers: json, body: #"{"id":1,"item":"tea","quantity":2}"#)),
        ]
    }()
}
