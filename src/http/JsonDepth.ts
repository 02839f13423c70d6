// src/http/review still imports the depth check from here; the rest of the code imports src/transport/JsonDepth.ts.
export { jsonTooDeep, tooDeepMessage } from "../transport/JsonDepth.ts"
