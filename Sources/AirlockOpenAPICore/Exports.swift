// JSONPointer, which the contract's violations and operations carry, is AirlockJSONSchema's (the
// JSON Schema validator this module and WireMock's `matchesJsonSchema` share): part of this API.
@_exported import AirlockJSONSchema
