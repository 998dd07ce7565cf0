export { buildHttpRequest, joinUrl, type BuildHttpRequestOptions, type HttpRequest, type HttpRequestAdditions } from "./build-request.ts";
export { authAdditions, type HttpCredential } from "./auth.ts";
export { encodeUnreserved, encodeAllowReserved } from "./encode.ts";
