import { describe, expect, it } from "vitest";
import { authAdditions, buildHttpRequest, isSluiceError, type HttpBinding, type HttpParameter, type HttpParameterStyle } from "@sluice/core";

/**
 * The oracle is the style examples table of OpenAPI 3.1 §4.8.12.4 (the same table as
 * 3.0.3 §4.7.12.4): parameter `color` with the values "blue", ["blue","black","brown"]
 * and {R:100,G:200,B:150}. Where the table writes a spaceDelimited / pipeDelimited value
 * without the `color=` name, the query piece carries the name (as OAS 3.2 clarifies).
 */
const string = "blue";
const array = ["blue", "black", "brown"];
const object = { R: 100, G: 200, B: 150 };

type Row = [style: HttpParameterStyle, explode: boolean, string: string | null, array: string | null, object: string | null];

const table: Row[] = [
  ["matrix", false, ";color=blue", ";color=blue,black,brown", ";color=R,100,G,200,B,150"],
  ["matrix", true, ";color=blue", ";color=blue;color=black;color=brown", ";R=100;G=200;B=150"],
  ["label", false, ".blue", ".blue,black,brown", ".R,100,G,200,B,150"],
  ["label", true, ".blue", ".blue.black.brown", ".R=100.G=200.B=150"],
  ["simple", false, "blue", "blue,black,brown", "R,100,G,200,B,150"],
  ["simple", true, "blue", "blue,black,brown", "R=100,G=200,B=150"],
  ["form", false, "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"],
  ["form", true, "color=blue", "color=blue&color=black&color=brown", "R=100&G=200&B=150"],
  ["spaceDelimited", false, null, "color=blue%20black%20brown", "color=R%20100%20G%20200%20B%20150"],
  ["pipeDelimited", false, null, "color=blue|black|brown", "color=R|100|G|200|B|150"],
  ["deepObject", true, null, null, "color[R]=100&color[G]=200&color[B]=150"],
];

function binding(parameter: Partial<HttpParameter> & Pick<HttpParameter, "in" | "style" | "explode">, path = "/p"): HttpBinding {
  return { kind: "http", method: "GET", path, parameters: [{ arg: "color", name: "color", ...parameter }] };
}

function serialize(style: HttpParameterStyle, explode: boolean, value: unknown): string {
  if (style === "matrix" || style === "label" || style === "simple") {
    const url = buildHttpRequest(binding({ in: "path", style, explode }, "/p/{color}"), { color: value }).url;
    return url.slice("/p/".length);
  }
  return buildHttpRequest(binding({ in: "query", style, explode }), { color: value }).url.split("?")[1] ?? "";
}

describe("OAS 3.1 §4.8.12.4 style examples", () => {
  for (const [style, explode, s, a, o] of table) {
    for (const [label, value, expected] of [
      ["string", string, s],
      ["array", array, a],
      ["object", object, o],
    ] as const) {
      if (expected === null) continue;
      it(`${style} explode=${explode} ${label}`, () => {
        expect(serialize(style, explode, value)).toBe(expected);
      });
    }
  }

  it("matrix with an empty string is the bare name, as RFC 6570 expands it", () => {
    expect(serialize("matrix", false, "")).toBe(";color");
  });

  it("form with an empty string sends the name with an empty value", () => {
    expect(serialize("form", true, "")).toBe("color=");
  });

  // Found by the reference builder test (test/reference-request-builder.test.ts): an
  // empty list or map was sent as `color=`, `;color`, `.` (then refused as a dot segment)
  // or an empty header. RFC 6570 §2.3 makes it undefined: it expands to nothing.
  describe("an empty array or object is undefined (RFC 6570 §2.3; OAS 3.2 column `undefined`)", () => {
    for (const [style, explode] of [["form", false], ["form", true], ["spaceDelimited", false], ["pipeDelimited", false], ["deepObject", true]] as const) {
      it(`query ${style} explode=${explode}: nothing is sent for [] and {}`, () => {
        expect(buildHttpRequest(binding({ in: "query", style, explode }), { color: [] }).url).toBe("/p");
        expect(buildHttpRequest(binding({ in: "query", style, explode }), { color: {} }).url).toBe("/p");
      });
    }
    for (const style of ["simple", "label", "matrix"] as const) {
      it(`path ${style}: [] and {} expand to nothing, so the required segment is refused as empty (not as a dot segment)`, () => {
        for (const value of [[], {}]) {
          const error = (() => {
            try {
              buildHttpRequest(binding({ in: "path", style, explode: false }, "/p/{color}"), { color: value });
            } catch (e) {
              return e;
            }
            return undefined;
          })();
          expect(isSluiceError(error) && error.code).toBe("INVALID_ARGUMENTS");
          expect((error as Error).message).toContain("must not be empty");
        }
      });
    }
    it("header: no header for [] or {}; an empty string is still a (blank) header", () => {
      const b: HttpBinding = { kind: "http", method: "GET", path: "/", parameters: [{ arg: "c", name: "X-Color", in: "header", style: "simple", explode: false }] };
      expect(buildHttpRequest(b, { c: [] }).headers).toEqual({});
      expect(buildHttpRequest(b, { c: {} }).headers).toEqual({});
      expect(buildHttpRequest(b, { c: "" }).headers).toEqual({ "x-color": "" });
    });
    it("cookie: no cookie for [] or {}, the others still sent", () => {
      const b: HttpBinding = {
        kind: "http",
        method: "GET",
        path: "/",
        parameters: [
          { arg: "c", name: "color", in: "cookie", style: "form", explode: false },
          { arg: "d", name: "size", in: "cookie", style: "form", explode: false },
        ],
      };
      expect(buildHttpRequest(b, { c: [], d: "L" }).headers).toEqual({ cookie: "size=L" });
      expect(buildHttpRequest(b, { c: {}, d: ["S", "M"] }).headers).toEqual({ cookie: "size=S,M" });
    });
    it("the empty string is not undefined: matrix `;color`, form `color=`, label `.` refused as a dot segment", () => {
      expect(serialize("matrix", false, "")).toBe(";color");
      expect(serialize("form", false, "")).toBe("color=");
      expect(() => serialize("label", false, "")).toThrow(/"\." or "\.\."/);
    });
  });

  it("header simple: no percent-encoding, object explode with =", () => {
    const b: HttpBinding = { kind: "http", method: "GET", path: "/", parameters: [{ arg: "c", name: "X-Color", in: "header", style: "simple", explode: true }] };
    expect(buildHttpRequest(b, { c: object }).headers["x-color"]).toBe("R=100,G=200,B=150");
    expect(buildHttpRequest(b, { c: array }).headers["x-color"]).toBe("blue,black,brown");
    expect(buildHttpRequest(b, { c: "a b/c" }).headers["x-color"]).toBe("a b/c");
  });

  it("cookie form: pieces in one Cookie header", () => {
    const b: HttpBinding = {
      kind: "http",
      method: "GET",
      path: "/",
      parameters: [
        { arg: "a", name: "color", in: "cookie", style: "form", explode: false },
        { arg: "b", name: "session", in: "cookie", style: "form", explode: true },
      ],
    };
    expect(buildHttpRequest(b, { a: array, b: "x y" }).headers["cookie"]).toBe("color=blue,black,brown; session=x%20y");
  });
});

describe("paths", () => {
  const repo: HttpBinding = {
    kind: "http",
    method: "GET",
    path: "/repos/{owner}/{repo}",
    server: "https://api.github.com/",
    parameters: [
      { arg: "owner", name: "owner", in: "path", style: "simple", explode: false, required: true },
      { arg: "repo", name: "repo", in: "path", style: "simple", explode: false, required: true },
    ],
  };

  it("percent-encodes every reserved character in a path value", () => {
    expect(buildHttpRequest(repo, { owner: "a/b", repo: "c d?#%!'()*" }).url).toBe("https://api.github.com/repos/a%2Fb/c%20d%3F%23%25%21%27%28%29%2A");
    expect(buildHttpRequest(repo, { owner: "é", repo: "x" }).url).toBe("https://api.github.com/repos/%C3%A9/x");
  });

  it("a value of . or .. cannot climb the path (URL parsers treat %2E%2E as ..)", () => {
    for (const [owner, repoName] of [["..", "x"], ["x", "."]]) {
      expect(() => buildHttpRequest(repo, { owner, repo: repoName })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENTS" }));
    }
    expect(buildHttpRequest(repo, { owner: "...", repo: ".x" }).url).toBe("https://api.github.com/repos/.../.x");
  });

  it("missing or empty path argument is INVALID_ARGUMENTS", () => {
    expect(() => buildHttpRequest(repo, { owner: "a" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENTS" }));
    expect(() => buildHttpRequest(repo, { owner: "", repo: "x" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENTS" }));
    const noParam: HttpBinding = { ...repo, parameters: repo.parameters.slice(0, 1) };
    let caught: unknown;
    try {
      buildHttpRequest(noParam, { owner: "a", repo: "b" });
    } catch (e) {
      caught = e;
    }
    expect(isSluiceError(caught, "INVALID_ARGUMENTS")).toBe(true);
  });

  it("joins server and path with exactly one slash, and honours baseUrl", () => {
    expect(buildHttpRequest({ ...repo, server: "https://h/api/v3///" }, { owner: "o", repo: "r" }).url).toBe("https://h/api/v3/repos/o/r");
    expect(buildHttpRequest(repo, { owner: "o", repo: "r" }, { baseUrl: "http://127.0.0.1:8080/x" }).url).toBe("http://127.0.0.1:8080/x/repos/o/r");
    const { server: _, ...noServer } = repo;
    expect(buildHttpRequest(noServer, { owner: "o", repo: "r" }).url).toBe("/repos/o/r");
  });
});

describe("query", () => {
  const list: HttpBinding = {
    kind: "http",
    method: "GET",
    path: "/v1/customers",
    parameters: [
      { arg: "limit", name: "limit", in: "query", style: "form", explode: true },
      { arg: "created", name: "created", in: "query", style: "deepObject", explode: true },
      { arg: "expand", name: "expand", in: "query", style: "deepObject", explode: true },
      { arg: "q", name: "q", in: "query", style: "form", explode: true },
      { arg: "next", name: "next", in: "query", style: "form", explode: true, allowReserved: true },
      { arg: "filter", name: "filter", in: "query", style: "form", explode: false, contentType: "application/json" },
    ],
  };

  it("keeps binding order, nests deepObject with brackets and indexed arrays", () => {
    const r = buildHttpRequest(list, { q: "a&b=c d", expand: ["data.x", "y"], created: { gte: 1, range: { lt: 2 } }, limit: 3 });
    expect(r.url).toBe("/v1/customers?limit=3&created[gte]=1&created[range][lt]=2&expand[0]=data.x&expand[1]=y&q=a%26b%3Dc%20d");
  });

  it("allowReserved leaves reserved characters but never & = + # ;", () => {
    expect(buildHttpRequest(list, { next: "/a/b?c:d,e&f=g+h#i" }).url).toBe("/v1/customers?next=/a/b?c:d,e%26f%3Dg%2Bh%23i");
    // `;` separates pairs for Rack < 3, Rails and older Python: raw, `x;admin=1` would carry a second name.
    expect(buildHttpRequest(list, { next: "x;admin=1" }).url).toBe("/v1/customers?next=x%3Badmin%3D1");
  });

  it("content parameters are sent as serialized JSON", () => {
    expect(buildHttpRequest(list, { filter: { a: [1] } }).url).toBe("/v1/customers?filter=%7B%22a%22%3A%5B1%5D%7D");
  });

  it("booleans, numbers and null", () => {
    expect(buildHttpRequest(list, { limit: true, q: null }).url).toBe("/v1/customers?limit=true&q=");
  });
});

describe("bodies", () => {
  const stripe: HttpBinding = {
    kind: "http",
    method: "POST",
    path: "/v1/payment_intents",
    server: "https://api.stripe.com/",
    parameters: [],
    body: {
      mediaType: "application/x-www-form-urlencoded",
      encoding: "form",
      fields: { amount: "amount", card: "card", items: "items", expand: "expand", metadata: "metadata", tags: "tags" },
      propertyEncoding: { expand: { style: "deepObject", explode: true }, metadata: { style: "deepObject", explode: true } },
    },
  };

  it("form: Stripe's bracket notation for nested objects and arrays of objects", () => {
    const r = buildHttpRequest(stripe, {
      amount: 2000,
      card: { number: "4242 4242", exp: { month: 1 } },
      items: [{ price: "p_1", quantity: 2 }, { price: "p_2" }],
      expand: ["customer"],
      metadata: { "a b": "c&d" },
      tags: ["x", "y"],
    });
    expect(r.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(r.body).toBe(
      "amount=2000&card[number]=4242%204242&card[exp][month]=1&items[0][price]=p_1&items[0][quantity]=2&items[1][price]=p_2&expand[0]=customer&metadata[a%20b]=c%26d&tags=x&tags=y",
    );
    expect(r.url).toBe("https://api.stripe.com/v1/payment_intents");
  });

  it("json from fields, and from a whole-body argument with a +json type", () => {
    const b: HttpBinding = {
      kind: "http",
      method: "POST",
      path: "/x",
      parameters: [],
      body: { mediaType: "application/json", encoding: "json", fields: { title: "title", body_arg: "body" }, required: true },
    };
    const r = buildHttpRequest(b, { title: "t", body_arg: { a: 1 } });
    expect(r.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(r.body as string)).toEqual({ title: "t", body: { a: 1 } });
    expect(buildHttpRequest(b, {}).body).toBe("{}");
    const whole: HttpBinding = { ...b, body: { mediaType: "application/merge-patch+json", encoding: "json", wholeBodyArg: "patch" } };
    const w = buildHttpRequest(whole, { patch: [1, 2] });
    expect(w.body).toBe("[1,2]");
    expect(w.headers["content-type"]).toBe("application/merge-patch+json");
    expect(buildHttpRequest(whole, {}).body).toBeUndefined();
  });

  it("multipart: text parts, JSON parts with their type, files; deterministic boundary", async () => {
    const b: HttpBinding = {
      kind: "http",
      method: "POST",
      path: "/upload",
      parameters: [],
      body: {
        mediaType: "multipart/form-data",
        encoding: "multipart",
        fields: { name: "name", meta: "meta", file: "file", tags: "tags" },
        propertyEncoding: { file: { contentType: "image/png" } },
      },
    };
    const args = { name: "n", meta: { a: 1 }, file: new Uint8Array([1, 2, 3]), tags: ["x", "y"] };
    const r = buildHttpRequest(b, args);
    expect(buildHttpRequest(b, args)).toEqual(r);
    const type = r.headers["content-type"]!;
    expect(type).toMatch(/^multipart\/form-data; boundary=sluice-[0-9a-f]{8}$/);
    const text = new TextDecoder().decode(r.body as Uint8Array);
    expect(text).toContain('Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n');
    // An independent parser (the platform's) reads it back.
    const form = await new Response(r.body as Uint8Array, { headers: { "content-type": type } }).formData();
    expect(form.get("name")).toBe("n");
    expect(form.getAll("tags")).toEqual(["x", "y"]);
    const file = form.get("file") as File;
    expect(file.type).toBe("image/png");
    expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([1, 2, 3]);
  });

  // Found by the reference builder test: Stripe's POST /v1/files declares
  // `file_link_data: {style: deepObject}` for its multipart body; the object went out as one
  // JSON part, which Stripe does not read (it takes `file_link_data[create]`).
  it("multipart with an Encoding Object style deepObject: one text part per bracketed leaf", async () => {
    const b: HttpBinding = {
      kind: "http",
      method: "POST",
      path: "/v1/files",
      parameters: [],
      body: {
        mediaType: "multipart/form-data",
        encoding: "multipart",
        fields: { purpose: "purpose", file_link_data: "file_link_data", expand: "expand", meta: "meta" },
        propertyEncoding: { file_link_data: { style: "deepObject", explode: true }, expand: { style: "deepObject", explode: true } },
      },
    };
    const r = buildHttpRequest(b, { purpose: "dispute_evidence", file_link_data: { create: true, metadata: { order: "a b" }, empty: {} }, expand: ["file"], meta: { a: 1 } });
    const form = await new Response(r.body as Uint8Array, { headers: { "content-type": r.headers["content-type"]! } }).formData();
    expect([...form.entries()]).toEqual([
      ["purpose", "dispute_evidence"],
      ["file_link_data[create]", "true"],
      ["file_link_data[metadata][order]", "a b"],
      ["expand[0]", "file"],
      ["meta", '{"a":1}'],
    ]);
    // Without a style, an object is still one JSON part.
    expect(new TextDecoder().decode(r.body as Uint8Array)).toContain('name="meta"\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n');
  });

  // Found by the reference builder test: GitHub's release asset upload is `*/*` with a
  // string of raw file data; it was sent as the JSON string literal `"..."`.
  it("a `*/*` body: a string is the data itself, anything else JSON", () => {
    const b: HttpBinding = { kind: "http", method: "POST", path: "/assets", parameters: [], body: { mediaType: "*/*", encoding: "json", wholeBodyArg: "body" } };
    expect(buildHttpRequest(b, { body: "plain 東京" })).toEqual({ method: "POST", url: "/assets", headers: { "content-type": "*/*" }, body: "plain 東京" });
    expect(buildHttpRequest(b, { body: { a: 1 } }).body).toBe('{"a":1}');
  });

  it("text/plain", () => {
    const b: HttpBinding = { kind: "http", method: "PUT", path: "/t", parameters: [], body: { mediaType: "text/plain", encoding: "text", wholeBodyArg: "text" } };
    expect(buildHttpRequest(b, { text: "hello" })).toEqual({ method: "PUT", url: "/t", headers: { "content-type": "text/plain" }, body: "hello" });
  });
});

describe("only arguments the binding names are sent", () => {
  const b: HttpBinding = {
    kind: "http",
    method: "POST",
    path: "/x/{id}",
    parameters: [
      { arg: "id", name: "id", in: "path", style: "simple", explode: false, required: true },
      { arg: "q", name: "q", in: "query", style: "form", explode: true },
    ],
    body: { mediaType: "application/json", encoding: "json", fields: { title: "title" } },
  };

  it("ignores arguments the binding does not know, inherited properties and __proto__", () => {
    const args = JSON.parse('{"id":"1","secret":"s","__proto__":{"q":"leak","title":"leak"},"constructor":"c"}') as Record<string, unknown>;
    const inherited = Object.create({ q: "leak", title: "leak" }) as Record<string, unknown>;
    inherited["id"] = "1";
    for (const a of [args, inherited]) {
      const r = buildHttpRequest(b, a);
      expect(r).toEqual({ method: "POST", url: "/x/1", headers: {} });
      expect(JSON.stringify(r)).not.toContain("leak");
      expect(JSON.stringify(r)).not.toContain("secret");
    }
  });

  it("refuses header line breaks", () => {
    const h: HttpBinding = { kind: "http", method: "GET", path: "/", parameters: [{ arg: "h", name: "X-H", in: "header", style: "simple", explode: false }] };
    expect(() => buildHttpRequest(h, { h: "a\r\nX-Evil: 1" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENTS" }));
  });
});

describe("auth seam", () => {
  it("bearer, basic and API keys in header, query and cookie", () => {
    const b: HttpBinding = { kind: "http", method: "GET", path: "/me", parameters: [{ arg: "q", name: "q", in: "query", style: "form", explode: true }] };
    const additions = authAdditions(
      [
        { scheme: "key", type: "apiKey", in: "query", name: "api_key" },
        { scheme: "c", type: "apiKey", in: "cookie", name: "sid" },
        { scheme: "h", type: "apiKey", in: "header", name: "X-Key" },
        { scheme: "b", type: "basic" },
      ],
      { key: { token: "k&1" }, c: { token: "s" }, h: { token: "hk" }, b: { username: "u", password: "p" } },
    );
    const r = buildHttpRequest(b, { q: "x" }, { additions });
    expect(r.url).toBe("/me?q=x&api_key=k%261");
    expect(r.headers).toEqual({ authorization: "Basic dTpw", "x-key": "hk", cookie: "sid=s" });
    expect(authAdditions([{ scheme: "t", type: "bearer" }], { t: { token: "tok" } }).headers).toEqual({ authorization: "Bearer tok" });
    expect(() => authAdditions([{ scheme: "t", type: "bearer" }], {})).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });
});

describe("a fragment in a path key", () => {
  // Box tells operations on one path apart by a fragment (`/files/{file_id}#get_shared_link`):
  // it names the operation in the document and is never part of the request.
  it("is left out of the URL, and the query follows the path", () => {
    const box: HttpBinding = {
      kind: "http",
      method: "GET",
      path: "/files/{file_id}#get_shared_link",
      server: "https://api.box.test/2.0",
      parameters: [
        { arg: "file_id", name: "file_id", in: "path", style: "simple", explode: false, required: true },
        { arg: "fields", name: "fields", in: "query", style: "form", explode: true, required: true },
      ],
    };
    expect(buildHttpRequest(box, { file_id: "12345", fields: "shared_link" }).url).toBe("https://api.box.test/2.0/files/12345?fields=shared_link");
  });
});
