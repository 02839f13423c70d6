// src/http/review still imports these from here; the rest of the code imports src/transport/Http.ts.
export { empty, HttpRequest, type HttpRequestShape, type HttpResponse, pathParam, statusOf, stream, text } from "../transport/Http.ts"
