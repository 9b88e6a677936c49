"""Tournament mode over HTTP: admitting and recording challenges (`http.Tournament`, the challenge
path's event hook), the director's and the devices' endpoints (`routes.register`), their types
(`api_types`, `round_types`, `record_types`) and their part of the OpenAPI document (`openapi_paths`,
which also amends the challenge operations through `openapi_challenge`).

The event itself (storage, chain, export) is the `tournament` package, which knows no web; only the
app factory (service.app) wires this package into the service.
"""
