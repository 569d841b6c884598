"""Schemathesis hooks for the API contract test (e2e/contract.test.ts).

The bundle upload takes `application/gzip` bytes (a .tar.gz), a media type Schemathesis has no
serializer for: send the generated binary body as it is, the way it sends
`application/octet-stream`. Random bytes are not a tar.gz, so the platform answers them with its
documented 415; schemathesis.toml lists that as expected for this operation.
"""

import schemathesis

schemathesis.serializer.alias("application/gzip", "application/octet-stream")
