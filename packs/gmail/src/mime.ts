/**
 * Just enough MIME for reading mail (hand-written): a part tree from the Gmail API's
 * parsed `payload` or from a whole RFC 2822 message (`format=raw`), the readable text of
 * a message (text/plain preferred, text/html reduced to text otherwise), and its
 * attachments as metadata. Decoding is lenient: a malformed part yields less text, never
 * an exception.
 */
import { isRecord, ownValue } from "@sluice/core/pack";

/** One node of a message, whichever form it came in. */
export interface MimePart {
  mimeType: string;
  filename: string;
  headers: { name: string; value: string }[];
  /** The decoded content of a leaf (transfer encoding undone), when the answer carries it. */
  content?: Uint8Array;
  /** Size in bytes as the API reports it (or as decoded). */
  size?: number;
  attachmentId?: string;
  partId?: string;
  parts: MimePart[];
}

export interface AttachmentInfo {
  filename: string;
  mimeType: string;
  size?: number;
  attachmentId?: string;
  partId?: string;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Bytes of base64 or base64url text (Gmail sends base64url); invalid characters are skipped. */
export function decodeBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text.replace(/[^A-Za-z0-9+/_=-]/g, ""), "base64"));
}

/** The value of header `name` (case-insensitive), first occurrence. */
export function headerValue(headers: readonly { name: string; value: string }[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === lower)?.value;
}

/** `type/subtype` and the parameters of a Content-Type or Content-Disposition value. */
export function parseHeaderParams(value: string): { value: string; params: Record<string, string> } {
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  const [head, ...rest] = value.split(";");
  const joined = rest.join(";");
  const re = /\s*([^=\s;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(joined)) !== null) {
    const key = match[1]!.toLowerCase();
    const raw = match[2] !== undefined ? match[2].replace(/\\(.)/g, "$1") : (match[3] ?? "").trim();
    // RFC 2231 (`filename*=utf-8''na%C3%AFve.pdf`) wins over the plain form.
    if (key.endsWith("*")) {
      const base = key.replace(/\*\d*\*?$/, "");
      const ext = /^([^']*)'[^']*'(.*)$/.exec(raw);
      try {
        params[base] = (params[base] !== undefined && /\*\d+\*?$/.test(key) ? params[base] : "") + decodeURIComponent(ext ? ext[2]! : raw);
      } catch {
        params[base] = raw;
      }
    } else if (params[key] === undefined) params[key] = raw;
  }
  return { value: (head ?? "").trim().toLowerCase(), params };
}

/** Text of bytes in a charset; unknown charsets read as UTF-8, never throwing. */
export function decodeText(bytes: Uint8Array, charset: string | undefined): string {
  const label = (charset ?? "utf-8").trim().toLowerCase() || "utf-8";
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?B?...?=`, `=?iso-8859-1?Q?...?=`) in a header value. */
export function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=)\s+(?==\?)/g, "$1")
    .replace(/=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=/g, (whole, charset: string, encoding: string, text: string) => {
      try {
        const bytes =
          encoding.toLowerCase() === "b"
            ? decodeBase64(text)
            : quotedPrintableBytes(text.replace(/_/g, " "));
        return decodeText(bytes, charset.replace(/\*.*$/, ""));
      } catch {
        return whole;
      }
    });
}

/** Bytes of quoted-printable text. */
export function quotedPrintableBytes(text: string): Uint8Array {
  const soft = text.replace(/=\r?\n/g, "");
  const out: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft.charCodeAt(i);
    if (c === 0x3d && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      out.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x100) out.push(c);
    else for (const b of Buffer.from(soft[i]!, "utf8")) out.push(b);
  }
  return new Uint8Array(out);
}

/** A part tree from the Gmail API's `payload` (MessagePart). Anything not shaped like one gives an empty part. */
export function partFromGmail(payload: unknown, depth = 0): MimePart {
  const headersIn = ownValue(payload, "headers");
  const headers = Array.isArray(headersIn)
    ? headersIn.filter(isRecord).map((h) => ({ name: str(ownValue(h, "name")), value: decodeEncodedWords(str(ownValue(h, "value"))) }))
    : [];
  const body = ownValue(payload, "body");
  const data = ownValue(body, "data");
  const size = ownValue(body, "size");
  const attachmentId = ownValue(body, "attachmentId");
  const partId = ownValue(payload, "partId");
  const partsIn = ownValue(payload, "parts");
  const part: MimePart = {
    mimeType: str(ownValue(payload, "mimeType")).toLowerCase(),
    filename: str(ownValue(payload, "filename")),
    headers,
    parts: Array.isArray(partsIn) && depth < 64 ? partsIn.map((p) => partFromGmail(p, depth + 1)) : [],
  };
  if (typeof data === "string" && data !== "") part.content = decodeBase64(data);
  if (typeof size === "number") part.size = size;
  if (typeof attachmentId === "string" && attachmentId !== "") part.attachmentId = attachmentId;
  if (typeof partId === "string" && partId !== "") part.partId = partId;
  return part;
}

/** Splits header block text into unfolded `name: value` pairs. */
function parseHeaderBlock(text: string): { name: string; value: string }[] {
  const headers: { name: string; value: string }[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && headers.length > 0) {
      headers[headers.length - 1]!.value += " " + line.trim();
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  return headers.map((h) => ({ name: h.name, value: decodeEncodedWords(h.value) }));
}

/** A part tree from the bytes of a whole message or one of its parts (RFC 2822 / 2045-2046). */
export function partFromRfc822(bytes: Uint8Array, depth = 0): MimePart {
  // latin1 maps bytes to chars one to one, so offsets stay byte offsets and 8-bit content survives.
  const text = Buffer.from(bytes).toString("latin1");
  const split = /\r?\n\r?\n/.exec(text);
  const headerText = split === null ? text : text.slice(0, split.index);
  const bodyText = split === null ? "" : text.slice(split.index + split[0].length);
  const headers = parseHeaderBlock(headerText);
  const type = parseHeaderParams(headerValue(headers, "content-type") ?? "text/plain");
  const disposition = parseHeaderParams(headerValue(headers, "content-disposition") ?? "");
  const filename = disposition.params["filename"] ?? type.params["name"] ?? "";
  const part: MimePart = { mimeType: type.value || "text/plain", filename: decodeEncodedWords(filename), headers, parts: [] };
  const boundary = type.params["boundary"];
  if (part.mimeType.startsWith("multipart/") && boundary !== undefined && boundary !== "" && depth < 64) {
    // Line by line: `--boundary` opens a part, `--boundary--` closes the last one; what
    // comes before the first (preamble) and after the last (epilogue) is not content.
    const delimiter = "--" + boundary;
    let current: string[] | undefined;
    const close = () => {
      if (current !== undefined) part.parts.push(partFromRfc822(Buffer.from(current.join("\r\n"), "latin1"), depth + 1));
    };
    for (const line of bodyText.split(/\r?\n/)) {
      const bare = line.replace(/[ \t]+$/, "");
      if (bare === delimiter || bare === delimiter + "--") {
        close();
        current = bare === delimiter ? [] : undefined;
        if (bare !== delimiter) break;
        continue;
      }
      current?.push(line);
    }
    if (current !== undefined) close();
    return part;
  }
  if (part.mimeType === "message/rfc822" && depth < 64) {
    part.parts.push(partFromRfc822(Buffer.from(bodyText, "latin1"), depth + 1));
    return part;
  }
  const encoding = (headerValue(headers, "content-transfer-encoding") ?? "").trim().toLowerCase();
  const content = encoding === "base64" ? decodeBase64(bodyText) : encoding === "quoted-printable" ? quotedPrintableBytes(bodyText) : new Uint8Array(Buffer.from(bodyText, "latin1"));
  part.content = content;
  part.size = content.byteLength;
  return part;
}

/** Whether a part is an attachment rather than body text: it has a file name or says so. */
export function isAttachment(part: MimePart): boolean {
  if (part.parts.length > 0 && part.mimeType.startsWith("multipart/")) return false;
  if (part.filename !== "") return true;
  const disposition = parseHeaderParams(headerValue(part.headers, "content-disposition") ?? "").value;
  if (disposition === "attachment") return true;
  // A leaf that is neither text nor a container (an image without a name, a PDF) is content, not text.
  return part.attachmentId !== undefined && !part.mimeType.startsWith("text/");
}

function charsetOf(part: MimePart): string | undefined {
  return parseHeaderParams(headerValue(part.headers, "content-type") ?? "").params["charset"];
}

/** Text of an HTML document: scripts, styles and markup go, blocks become lines, links keep their target. */
export function htmlToText(html: string, options: { dropQuotes?: boolean } = {}): string {
  let text = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style|head|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "");
  if (options.dropQuotes === true) text = removeElements(removeElements(text, "blockquote"), "div", /class\s*=\s*["'][^"']*gmail_quote/i);
  text = text
    .replace(/<a\b[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a\s*>/gi, (_m, h1: string | undefined, h2: string | undefined, inner: string) => {
      const href = (h1 ?? h2 ?? "").trim();
      const label = inner.replace(/<[^>]*>/g, "").trim();
      if (href === "" || /^(mailto:|#|javascript:)/i.test(href) || decodeEntities(label) === decodeEntities(href)) return label || href;
      return `${label} (${href})`;
    })
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(/<\/(p|div|h[1-6]|tr|table|ul|ol|li|blockquote|section|article|header|footer)\s*>/gi, "\n")
    .replace(/<(p|div|h[1-6]|tr|table|section|article)\b[^>]*>/gi, "\n")
    .replace(/<\/t[dh]\s*>/gi, " ")
    .replace(/<[^>]*>/g, "");
  return tidy(decodeEntities(text));
}

/** Removes elements named `tag` (nested ones included), optionally only those whose opening tag matches `attr`. */
function removeElements(html: string, tag: string, attr?: RegExp): string {
  const open = new RegExp(`<${tag}\\b[^>]*>`, "gi");
  const any = new RegExp(`<(/?)${tag}\\b[^>]*>`, "gi");
  let out = "";
  let from = 0;
  for (;;) {
    open.lastIndex = from;
    let start: RegExpExecArray | null;
    do start = open.exec(html);
    while (start !== null && attr !== undefined && !attr.test(start[0]));
    if (start === null) break;
    out += html.slice(from, start.index);
    any.lastIndex = start.index + start[0].length;
    let depth = 1;
    let end = html.length;
    let match: RegExpExecArray | null;
    while (depth > 0 && (match = any.exec(html)) !== null) {
      depth += match[1] === "/" ? -1 : 1;
      if (depth === 0) end = match.index + match[0].length;
    }
    from = end;
  }
  return out + html.slice(from);
}

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", ndash: "–", mdash: "—", hellip: "…", rsquo: "’", lsquo: "‘", rdquo: "”", ldquo: "“", copy: "©", reg: "®", trade: "™", euro: "€", zwnj: "" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const value = ENTITIES[name.toLowerCase()];
    return value ?? whole;
  });
}

/** Trims lines, collapses runs of spaces and of blank lines. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t\u00a0\u200b]+/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * Removes what a reply quotes of earlier messages: `>` lines and the "On ... wrote:"
 * line before them. For messages of a thread, whose earlier messages are there anyway.
 */
export function dropQuotedText(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let dropped = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*>/.test(line)) {
      dropped = true;
      continue;
    }
    // The attribution line, possibly wrapped over two lines, right before a quote.
    const nextQuoted = (k: number) => k < lines.length && (/^\s*>/.test(lines[k]!) || (lines[k]!.trim() === "" && k + 1 < lines.length && /^\s*>/.test(lines[k + 1]!)));
    if (/wrote:\s*$/.test(line) && nextQuoted(i + 1)) {
      if (out.length > 0 && /^On\b/.test(out[out.length - 1]!) && !/wrote:/.test(out[out.length - 1]!)) out.pop();
      dropped = true;
      continue;
    }
    out.push(line);
  }
  const kept = out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
  return dropped ? `${kept}\n[quoted text omitted]`.trim() : kept;
}

/**
 * The readable text of a part tree: in `multipart/alternative` the plain version when
 * there is one (else the HTML one as text); in other multiparts every text child in
 * order. Attachments are skipped.
 */
export function readableText(part: MimePart, options: { dropQuotes?: boolean } = {}): string {
  const texts: string[] = [];
  const visit = (node: MimePart, depth: number): void => {
    if (depth > 64 || isAttachment(node)) return;
    if (node.mimeType === "multipart/alternative" && node.parts.length > 0) {
      const plain = node.parts.find((p) => !isAttachment(p) && (p.mimeType === "text/plain" || hasPlain(p)));
      const choice = plain ?? node.parts.find((p) => !isAttachment(p) && (p.mimeType === "text/html" || p.mimeType.startsWith("multipart/"))) ?? node.parts[0]!;
      visit(choice, depth + 1);
      return;
    }
    if (node.parts.length > 0) {
      for (const child of node.parts) visit(child, depth + 1);
      return;
    }
    if (node.content === undefined) return;
    if (node.mimeType === "text/plain" || node.mimeType === "") {
      const text = tidy(decodeText(node.content, charsetOf(node)));
      texts.push(options.dropQuotes === true ? dropQuotedText(text) : text);
    } else if (node.mimeType === "text/html") {
      const text = htmlToText(decodeText(node.content, charsetOf(node)), options);
      texts.push(options.dropQuotes === true ? dropQuotedText(text) : text);
    }
  };
  visit(part, 0);
  return texts.filter((t) => t !== "").join("\n\n");
}

function hasPlain(part: MimePart): boolean {
  return part.parts.some((p) => p.mimeType === "text/plain" && !isAttachment(p));
}

/** Every attachment of a part tree, as metadata. */
export function attachmentsOf(part: MimePart): AttachmentInfo[] {
  const out: AttachmentInfo[] = [];
  const visit = (node: MimePart, depth: number): void => {
    if (depth > 64) return;
    if (isAttachment(node)) {
      const info: AttachmentInfo = { filename: node.filename, mimeType: node.mimeType };
      const size = node.size ?? node.content?.byteLength;
      if (size !== undefined) info.size = size;
      if (node.attachmentId !== undefined) info.attachmentId = node.attachmentId;
      else if (node.partId !== undefined) info.partId = node.partId;
      out.push(info);
      return;
    }
    for (const child of node.parts) visit(child, depth + 1);
  };
  visit(part, 0);
  return out;
}
