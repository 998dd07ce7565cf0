/**
 * The hand-written response handlers of the packs, on payloads shaped like the APIs'
 * real answers: what the model gets, what it must still get (ids, cursors, more-pages
 * flags, also when false), what it must never get (base64 bodies, API hypermedia), and
 * how many bytes each handler saves. Byte counts are of compact JSON on both sides, so
 * the ratios are deterministic and understate the saving on APIs that pretty-print.
 * Every handler is also fed odd shapes, which it must survive without falling back.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ResponseHandler, ResponseInfo, Tool } from "@sluice/core";
import * as linear from "@sluice/pack-linear";
import * as github from "@sluice/pack-github";
import * as stripe from "@sluice/pack-stripe";
import * as githubRest from "@sluice/pack-github-rest";
import * as slack from "@sluice/pack-slack";
import * as gmail from "@sluice/pack-gmail";
import * as notion from "@sluice/pack-notion";

const PACKS = { linear, github, stripe, "github-rest": githubRest, slack, gmail, notion } as const;

function toolOf(pack: keyof typeof PACKS, name: string): Tool<object> {
  const tool = (PACKS[pack].allTools as readonly Tool<object>[]).find((t) => t.name === name);
  if (tool === undefined) throw new Error(`${pack} has no tool ${name}`);
  return tool;
}

function run(pack: keyof typeof PACKS, name: string, body: unknown, extra: Partial<ResponseInfo> = {}): unknown {
  const tool = toolOf(pack, name);
  expect(tool.responseHandler, `${name} has a handler`).toBeDefined();
  return tool.responseHandler!(body, { tool: name, status: 200, headers: {}, args: {}, ...extra });
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
const ratios: string[] = [];

/** Records payload -> context bytes for the report and checks the floor. */
function measured(label: string, body: unknown, output: unknown, floor: number): void {
  const payload = bytes(body);
  const context = bytes(output);
  const ratio = payload / context;
  ratios.push(`${label.padEnd(44)} ${String(payload).padStart(7)} -> ${String(context).padStart(6)} bytes  ${ratio.toFixed(2)}x`);
  expect(ratio, `${label}: ${payload} -> ${context}`).toBeGreaterThanOrEqual(floor);
}

afterAll(() => {
  console.log(`payload -> context on realistic payloads (compact JSON both sides)\n${ratios.join("\n")}`);
});

/** Every string anywhere in a value. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (typeof value === "object" && value !== null) for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** Every key anywhere in a value. */
function keys(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keys(item, out);
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keys(v, out);
    }
  }
  return out;
}

const b64url = (text: string | Buffer) => Buffer.from(text).toString("base64url");

// ---------------------------------------------------------------------------------------
// Gmail

/** Transport headers a real message carries before the few a reader needs. */
function transportHeaders(n: number): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ name: "Received", value: `from mail-sor-f${40 + i}.google.com (mail-sor-f${40 + i}.google.com. [209.85.220.${41 + i}]) by mx.google.com with SMTPS id a${i}sor123456lfg.${i}.2024.01.15.09.30.00 for <ada@example.com> (Google Transport Security); Mon, 15 Jan 2024 09:30:0${i % 10} -0800 (PST)` });
  }
  out.push({ name: "ARC-Seal", value: "i=1; a=rsa-sha256; t=1705339800; cv=none; d=google.com; s=arc-20160816; b=" + "Qm9ndXNTaWduYXR1cmVEYXRh".repeat(14) });
  out.push({ name: "ARC-Message-Signature", value: "i=1; a=rsa-sha256; c=relaxed/relaxed; d=google.com; s=arc-20160816; h=to:subject:message-id:date:from:mime-version:dkim-signature; bh=" + "YmFzZTY0aGFzaA".repeat(4) + "; b=" + "U2lnbmF0dXJlQnl0ZXM".repeat(16) });
  out.push({ name: "DKIM-Signature", value: "v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=20230601; t=1705339800; x=1705944600; darn=example.com; h=to:subject:message-id:date:from:mime-version:from:to:cc:subject:date:message-id:reply-to; bh=" + "Ym9keWhhc2g".repeat(4) + "; b=" + "RGtpbVNpZ25hdHVyZQ".repeat(20) });
  out.push({ name: "X-Google-DKIM-Signature", value: "v=1; a=rsa-sha256; c=relaxed/relaxed; d=1e100.net; s=20230601; t=1705339800; b=" + "R29vZ2xlRGtpbQ".repeat(20) });
  out.push({ name: "X-Gm-Message-State", value: "AOJu0YwPZ" + "x".repeat(120) });
  out.push({ name: "X-Google-Smtp-Source", value: "AGHT+IF" + "y".repeat(90) });
  out.push({ name: "X-Received", value: "by 2002:a05:6512:3b2c:b0:50e:7b6a:1234 with SMTP id ff44-20020a0565123b2c00b0050e7b6a1234mr2345lfb.12.1705339800123; Mon, 15 Jan 2024 09:30:00 -0800 (PST)" });
  out.push({ name: "Return-Path", value: "<grace@example.com>" });
  out.push({ name: "Received-SPF", value: "pass (google.com: domain of grace@example.com designates 209.85.220.41 as permitted sender) client-ip=209.85.220.41;" });
  out.push({ name: "Authentication-Results", value: "mx.google.com; dkim=pass header.i=@example.com header.s=20230601 header.b=AbCdEf12; spf=pass (google.com: domain of grace@example.com designates 209.85.220.41 as permitted sender) smtp.mailfrom=grace@example.com; dmarc=pass (p=NONE sp=QUARANTINE dis=NONE) header.from=example.com" });
  out.push({ name: "MIME-Version", value: "1.0" });
  return out;
}

const PLAIN = "Hi Ada,\n\nThe Q3 numbers are in the attached report. Revenue is up 12 % — mostly the EU launch.\n\nCan you review the forecast tab before Thursday?\n\nThanks,\nGrace";
const HTML =
  '<html><head><style>p{margin:0}</style></head><body><div dir="ltr"><p>Hi Ada,</p><p>The Q3 numbers are in the attached report. Revenue is up 12&nbsp;% &mdash; mostly the <b>EU launch</b>.</p>' +
  '<p>Can you review the <a href="https://docs.example.com/forecast">forecast tab</a> before Thursday?</p><p>Thanks,<br>Grace</p></div></body></html>';
const PDF = Buffer.alloc(180_000, 7);
const LOGO = Buffer.alloc(2_400, 9);

function gmailMessage(id: string, extraHeaders: { name: string; value: string }[] = [], plain = PLAIN, html = HTML) {
  return {
    id,
    threadId: "18d0c1a2b3c4d5e6",
    labelIds: ["INBOX", "IMPORTANT", "CATEGORY_PERSONAL", "UNREAD"],
    snippet: "Hi Ada, The Q3 numbers are in the attached report. Revenue is up 12 % — mostly the EU launch. Can you review the forecast tab before Thursday?",
    historyId: "9876543",
    internalDate: "1705339800000",
    sizeEstimate: 251_234,
    payload: {
      partId: "",
      mimeType: "multipart/mixed",
      filename: "",
      headers: [
        ...transportHeaders(6),
        { name: "From", value: "Grace Hopper <grace@example.com>" },
        { name: "Date", value: "Mon, 15 Jan 2024 09:30:00 -0800" },
        { name: "Message-ID", value: `<CAF=${id}@mail.gmail.com>` },
        { name: "Subject", value: "Q3 report" },
        { name: "To", value: "Ada Lovelace <ada@example.com>" },
        { name: "Cc", value: "Alan Turing <alan@example.com>" },
        ...extraHeaders,
        { name: "Content-Type", value: 'multipart/mixed; boundary="000000000000abcdef0123456789"' },
      ],
      body: { size: 0 },
      parts: [
        {
          partId: "0",
          mimeType: "multipart/alternative",
          filename: "",
          headers: [{ name: "Content-Type", value: 'multipart/alternative; boundary="000000000000fedcba9876543210"' }],
          body: { size: 0 },
          parts: [
            { partId: "0.0", mimeType: "text/plain", filename: "", headers: [{ name: "Content-Type", value: 'text/plain; charset="UTF-8"' }, { name: "Content-Transfer-Encoding", value: "quoted-printable" }], body: { size: Buffer.byteLength(plain), data: b64url(plain) } },
            { partId: "0.1", mimeType: "text/html", filename: "", headers: [{ name: "Content-Type", value: 'text/html; charset="UTF-8"' }, { name: "Content-Transfer-Encoding", value: "quoted-printable" }], body: { size: Buffer.byteLength(html), data: b64url(html) } },
          ],
        },
        {
          partId: "1",
          mimeType: "application/pdf",
          filename: "Q3-report.pdf",
          headers: [{ name: "Content-Type", value: 'application/pdf; name="Q3-report.pdf"' }, { name: "Content-Disposition", value: 'attachment; filename="Q3-report.pdf"' }, { name: "Content-Transfer-Encoding", value: "base64" }, { name: "X-Attachment-Id", value: "f_lrf3k2x10" }],
          body: { attachmentId: "ANGjdJ8wq3Xf" + "k".repeat(300), size: PDF.byteLength },
        },
        {
          partId: "2",
          mimeType: "image/png",
          filename: "logo.png",
          headers: [{ name: "Content-Type", value: 'image/png; name="logo.png"' }, { name: "Content-Disposition", value: 'inline; filename="logo.png"' }, { name: "Content-ID", value: "<ii_lrf3k2x21>" }],
          body: { size: LOGO.byteLength, data: b64url(LOGO) },
        },
      ],
    },
  };
}

describe("gmail", () => {
  it("users.messages.get: nested multipart/alternative + attachments -> decoded text, attachment metadata, no base64", () => {
    const body = gmailMessage("18d0c1a2b3c4d5e6", [{ name: "In-Reply-To", value: "<CAF=previous@mail.gmail.com>" }]);
    const output = run("gmail", "gmail_users_messages_get", body) as Record<string, any>;
    expect(output.id).toBe("18d0c1a2b3c4d5e6");
    expect(output.threadId).toBe("18d0c1a2b3c4d5e6");
    expect(output.labelIds).toEqual(["INBOX", "IMPORTANT", "CATEGORY_PERSONAL", "UNREAD"]);
    expect(output.historyId).toBe("9876543");
    expect(output.headers).toEqual({
      From: "Grace Hopper <grace@example.com>",
      To: "Ada Lovelace <ada@example.com>",
      Cc: "Alan Turing <alan@example.com>",
      Subject: "Q3 report",
      Date: "Mon, 15 Jan 2024 09:30:00 -0800",
      "Message-ID": "<CAF=18d0c1a2b3c4d5e6@mail.gmail.com>",
      "In-Reply-To": "<CAF=previous@mail.gmail.com>",
    });
    // The plain alternative, decoded, not the HTML one.
    expect(output.text).toBe(PLAIN);
    expect(output.attachments).toEqual([
      { filename: "Q3-report.pdf", mimeType: "application/pdf", size: PDF.byteLength, attachmentId: "ANGjdJ8wq3Xf" + "k".repeat(300) },
      { filename: "logo.png", mimeType: "image/png", size: LOGO.byteLength, partId: "2" },
    ]);
    // No body data of any part, and nothing of the transport headers.
    const text = JSON.stringify(output);
    for (const part of [b64url(PLAIN), b64url(HTML), b64url(LOGO).slice(0, 100)]) expect(text).not.toContain(part);
    expect(text).not.toMatch(/DKIM|Received|ARC-Seal/);
    expect(output).not.toHaveProperty("snippet");
    expect(output).not.toHaveProperty("payload");
    measured("gmail users.messages.get (multipart + 2 attachments)", body, output, 3);
  });

  it("an HTML-only message becomes text; links keep their target; scripts and styles go", () => {
    const body = {
      id: "m2",
      threadId: "t2",
      payload: {
        mimeType: "text/html",
        filename: "",
        headers: [{ name: "Subject", value: "=?UTF-8?B?UmVwb3J0IOKAkyBRMw==?=" }, { name: "Content-Type", value: "text/html; charset=utf-8" }],
        body: { size: HTML.length, data: b64url(HTML + "<script>track()</script>") },
      },
    };
    const output = run("gmail", "gmail_users_messages_get", body) as Record<string, any>;
    expect(output.headers).toEqual({ Subject: "Report – Q3" });
    expect(output.text).toBe(
      "Hi Ada,\n\nThe Q3 numbers are in the attached report. Revenue is up 12 % — mostly the EU launch.\n\nCan you review the forecast tab (https://docs.example.com/forecast) before Thursday?\n\nThanks,\nGrace",
    );
    expect(output.text).not.toMatch(/[<>]|track\(\)|margin/);
  });

  it("format=raw: the RFC 2822 message is parsed the same way (quoted-printable, base64 attachment, encoded words)", () => {
    const raw = [
      "Received: from mx.example.com by mx.google.com; Mon, 15 Jan 2024 09:30:00 -0800",
      "From: =?iso-8859-1?Q?Jos=E9_Garc=EDa?= <jose@example.com>",
      "To: ada@example.com",
      "Subject: =?UTF-8?Q?Caf=C3=A9_budget?=",
      "Date: Mon, 15 Jan 2024 09:30:00 -0800",
      "Message-ID: <raw-1@example.com>",
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="outer"',
      "",
      "This is a multi-part message in MIME format.",
      "--outer",
      'Content-Type: multipart/alternative; boundary="inner"',
      "",
      "--inner",
      "Content-Type: text/plain; charset=iso-8859-1",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "Le caf=E9 co=FBte 3 =80 de plus cette ann=E9e, et la ligne est tr=",
      "=E8s longue.",
      "--inner",
      "Content-Type: text/html; charset=utf-8",
      "",
      "<p>ignored</p>",
      "--inner--",
      "--outer",
      "Content-Type: text/csv; name=budget.csv",
      "Content-Disposition: attachment; filename*=utf-8''budg%C3%A9t.csv",
      "Content-Transfer-Encoding: base64",
      "",
      Buffer.from("item,amount\ncoffee,3\n").toString("base64"),
      "--outer--",
      "epilogue",
    ].join("\r\n");
    const body = { id: "r1", threadId: "t1", labelIds: ["INBOX"], raw: b64url(Buffer.from(raw, "latin1")), sizeEstimate: raw.length, historyId: "1" };
    const output = run("gmail", "gmail_users_messages_get", body, { args: { userId: "me", id: "r1", format: "raw" } }) as Record<string, any>;
    expect(output.headers).toEqual({ From: "José García <jose@example.com>", To: "ada@example.com", Subject: "Café budget", Date: "Mon, 15 Jan 2024 09:30:00 -0800", "Message-ID": "<raw-1@example.com>" });
    // iso-8859-1 has no euro sign: 0x80 reads as a C1 control, as a mail client would show it.
    expect(output.text).toBe("Le café coûte 3 \u0080 de plus cette année, et la ligne est très longue.");
    expect(output.attachments).toEqual([{ filename: "budgét.csv", mimeType: "text/csv", size: 21 }]);
    expect(JSON.stringify(output)).not.toContain(body.raw.slice(0, 40));
  });

  it("users.threads.get: every message slimmed, text quoted from earlier messages dropped, ids kept", () => {
    const first = "Can we move the launch to March 4?";
    const second = "March 4 works for us.\n\nOn Mon, Jan 15, 2024 at 9:30 AM Grace Hopper <grace@example.com> wrote:\n> Can we move the launch to March 4?";
    const third = "Great, booked.\n\nOn Tue, Jan 16, 2024 at 10:00 AM Ada Lovelace <ada@example.com>\nwrote:\n\n> March 4 works for us.\n>\n> On Mon, Jan 15, 2024 at 9:30 AM Grace Hopper <grace@example.com> wrote:\n> > Can we move the launch to March 4?";
    const body = {
      id: "18d0c1a2b3c4d5e6",
      historyId: "9876600",
      snippet: "Great, booked.",
      messages: [gmailMessage("m1", [], first, `<p>${first}</p>`), gmailMessage("m2", [], second, `<p>March 4 works for us.</p><div class="gmail_quote"><blockquote>${first}</blockquote></div>`), gmailMessage("m3", [], third, "<p>Great, booked.</p>")],
    };
    const output = run("gmail", "gmail_users_threads_get", body) as Record<string, any>;
    expect(output.id).toBe("18d0c1a2b3c4d5e6");
    expect(output.historyId).toBe("9876600");
    expect(output.messages.map((m: any) => m.id)).toEqual(["m1", "m2", "m3"]);
    expect(output.messages.map((m: any) => m.text)).toEqual([first, "March 4 works for us.\n[quoted text omitted]", "Great, booked.\n[quoted text omitted]"]);
    expect(JSON.stringify(output)).not.toContain(b64url(LOGO).slice(0, 100));
    measured("gmail users.threads.get (3 messages)", body, output, 3);
  });

  it("list answers keep ids, threadId and nextPageToken", () => {
    const body = { messages: Array.from({ length: 5 }, (_, i) => ({ id: `m${i}`, threadId: `t${i}` })), nextPageToken: "09876543210123456789", resultSizeEstimate: 201 };
    expect(run("gmail", "gmail_users_messages_list", body)).toEqual(body);
  });

  it("users.messages.attachments.get: text content decoded, binary content described, never base64", () => {
    const csv = "name,amount\nAda,3\n";
    expect(run("gmail", "gmail_users_messages_attachments_get", { attachmentId: "a1", size: csv.length, data: b64url(csv) })).toEqual({ attachmentId: "a1", size: csv.length, text: csv });
    const output = run("gmail", "gmail_users_messages_attachments_get", { attachmentId: "a2", size: PDF.byteLength, data: b64url(PDF) }) as Record<string, unknown>;
    expect(output).toEqual({ attachmentId: "a2", size: PDF.byteLength, content: `binary, ${PDF.byteLength} bytes (not shown)` });
  });
});

// ---------------------------------------------------------------------------------------
// GitHub REST

function ghUser(login: string, id: number) {
  const api = `https://api.github.com/users/${login}`;
  return {
    login,
    id,
    node_id: Buffer.from(`04:User${id}`).toString("base64"),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: "",
    url: api,
    html_url: `https://github.com/${login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: "User",
    user_view_type: "public",
    site_admin: false,
  };
}

function ghIssue(n: number) {
  const api = `https://api.github.com/repos/octo-org/service/issues/${n}`;
  return {
    url: api,
    repository_url: "https://api.github.com/repos/octo-org/service",
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `https://github.com/octo-org/service/issues/${n}`,
    id: 2_000_000_000 + n,
    node_id: `I_kwDOABCD${n}`,
    number: n,
    title: `Webhook retries drop the last item of page ${n}`,
    user: ghUser("grace", 101),
    labels: [{ id: 501, node_id: "LA_kwDO501", url: "https://api.github.com/repos/octo-org/service/labels/bug", name: "bug", color: "d73a4a", default: true, description: "Something isn't working" }],
    state: "open",
    locked: false,
    assignee: ghUser("ada", 102),
    assignees: [ghUser("ada", 102), ghUser("alan", 103)],
    milestone: null,
    comments: n % 4,
    created_at: "2024-01-15T09:30:00Z",
    updated_at: "2024-01-16T10:00:00Z",
    closed_at: null,
    author_association: "MEMBER",
    type: null,
    active_lock_reason: null,
    sub_issues_summary: { total: 0, completed: 0, percent_completed: 0 },
    body: "When a page holds more than a few hundred records the worker retries twice and drops the last item.",
    closed_by: null,
    reactions: { url: `${api}/reactions`, total_count: 0, "+1": 0, "-1": 0, laugh: 0, hooray: 0, confused: 0, heart: 0, rocket: 0, eyes: 0 },
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
    state_reason: null,
  };
}

describe("github-rest", () => {
  const link = '<https://api.github.com/repositories/1296269/issues?per_page=3&page=2>; rel="next", <https://api.github.com/repositories/1296269/issues?per_page=3&page=7>; rel="last"';

  it("issues list: no *_url but html_url, users collapsed to {login, id}, next page surfaced from Link", () => {
    const body = [ghIssue(1347), ghIssue(1348), ghIssue(1349)];
    const output = run("github-rest", "issues_list_for_repo", body, { headers: { link } }) as Record<string, any>;
    expect(output.has_more).toBe(true);
    expect(output.next_page).toBe(2);
    expect(output.items.map((i: any) => i.id)).toEqual(body.map((i) => i.id));
    expect(output.items.map((i: any) => i.number)).toEqual([1347, 1348, 1349]);
    const seen = keys(output);
    for (const key of seen) if (key.endsWith("_url")) expect(key).toBe("html_url");
    expect(seen.has("node_id")).toBe(false);
    expect(seen.has("url")).toBe(false);
    expect(output.items[0].user).toEqual({ login: "grace", id: 101 });
    expect(output.items[0].assignees).toEqual([{ login: "ada", id: 102 }, { login: "alan", id: 103 }]);
    expect(output.items[0].html_url).toBe("https://github.com/octo-org/service/issues/1347");
    expect(output.items[0]).not.toHaveProperty("reactions");
    expect(output.items[0]).not.toHaveProperty("closed_at");
    measured("github-rest issues_list_for_repo (3 issues)", body, output, 3);
  });

  it("the last page says has_more: false and carries no next page", () => {
    const output = run("github-rest", "issues_list_for_repo", [ghIssue(1)], { headers: { link: '<https://api.github.com/x?page=1>; rel="prev", <https://api.github.com/x?page=1>; rel="first"' } });
    expect(output).toMatchObject({ has_more: false });
    expect(output).not.toHaveProperty("next_page");
  });

  it("pull requests: head/base repositories collapsed to {id, full_name}; commit signatures dropped", () => {
    const repo = { id: 42, node_id: "R_42", name: "service", full_name: "octo-org/service", private: false, owner: ghUser("octo-org", 7), html_url: "https://github.com/octo-org/service", description: "The service", fork: false, url: "https://api.github.com/repos/octo-org/service", forks_url: "x", keys_url: "x", collaborators_url: "x", teams_url: "x", hooks_url: "x", issue_events_url: "x", events_url: "x", assignees_url: "x", branches_url: "x", tags_url: "x", blobs_url: "x", git_tags_url: "x", git_refs_url: "x", trees_url: "x", statuses_url: "x", languages_url: "x", stargazers_url: "x", contributors_url: "x", subscribers_url: "x", subscription_url: "x", commits_url: "x", git_commits_url: "x", comments_url: "x", issue_comment_url: "x", contents_url: "x", compare_url: "x", merges_url: "x", archive_url: "x", downloads_url: "x", issues_url: "x", pulls_url: "x", milestones_url: "x", notifications_url: "x", labels_url: "x", releases_url: "x", deployments_url: "x", created_at: "2020-01-01T00:00:00Z", updated_at: "2024-01-01T00:00:00Z", pushed_at: "2024-01-02T00:00:00Z", git_url: "git://github.com/octo-org/service.git", ssh_url: "git@github.com:octo-org/service.git", clone_url: "https://github.com/octo-org/service.git", svn_url: "https://github.com/octo-org/service", homepage: null, size: 1234, stargazers_count: 10, watchers_count: 10, language: "TypeScript", has_issues: true, has_projects: true, has_downloads: true, has_wiki: true, has_pages: false, forks_count: 1, mirror_url: null, archived: false, disabled: false, open_issues_count: 3, license: null, allow_forking: true, is_template: false, topics: [], visibility: "public", forks: 1, open_issues: 3, watchers: 10, default_branch: "main" };
    const pull = { ...ghIssue(7), diff_url: "https://github.com/octo-org/service/pull/7.diff", patch_url: "https://github.com/octo-org/service/pull/7.patch", head: { label: "octo-org:fix", ref: "fix", sha: "a".repeat(40), user: ghUser("octo-org", 7), repo }, base: { label: "octo-org:main", ref: "main", sha: "b".repeat(40), user: ghUser("octo-org", 7), repo }, _links: { self: { href: "x" }, html: { href: "y" } }, merged_at: null, draft: false, requested_reviewers: [ghUser("alan", 103)] };
    const output = run("github-rest", "pulls_list", [pull], { headers: {} }) as Record<string, any>;
    expect(output.items[0].head).toEqual({ label: "octo-org:fix", ref: "fix", sha: "a".repeat(40), user: { login: "octo-org", id: 7 }, repo: { id: 42, full_name: "octo-org/service" } });
    expect(output.items[0]).not.toHaveProperty("_links");
    expect(output.has_more).toBe(false);
    measured("github-rest pulls_list (1 pull)", [pull], output, 5);

    const commit = { sha: "c".repeat(40), node_id: "C_1", commit: { author: { name: "Ada", email: "ada@example.com", date: "2024-01-15T09:30:00Z" }, message: "Fix retries", tree: { sha: "d".repeat(40), url: "https://api.github.com/repos/o/r/git/trees/d" }, url: "https://api.github.com/repos/o/r/git/commits/c", comment_count: 0, verification: { verified: true, reason: "valid", signature: "-----BEGIN PGP SIGNATURE-----\n" + "Z".repeat(800), payload: "tree d\nparent e\n" + "Y".repeat(300), verified_at: "2024-01-15T09:31:00Z" } }, url: "https://api.github.com/repos/o/r/commits/c", html_url: "https://github.com/o/r/commit/c", comments_url: "x", author: ghUser("ada", 102), committer: ghUser("web-flow", 19864447), parents: [{ sha: "e".repeat(40), url: "https://api.github.com/repos/o/r/commits/e", html_url: "https://github.com/o/r/commit/e" }] };
    const commits = run("github-rest", "repos_list_commits", [commit]) as Record<string, any>;
    expect(commits.items[0].commit.verification).toEqual({ verified: true, reason: "valid", verified_at: "2024-01-15T09:31:00Z" });
    expect(commits.items[0].commit.comment_count).toBe(0);
    expect(commits.items[0].parents).toEqual([{ sha: "e".repeat(40), html_url: "https://github.com/o/r/commit/e" }]);
  });

  it("a single object keeps its own fields; its account is not collapsed at the top", () => {
    const output = run("github-rest", "users_get_by_username", ghUser("ada", 102));
    expect(output).toEqual({ login: "ada", id: 102, html_url: "https://github.com/ada", type: "User", user_view_type: "public", site_admin: false });
  });

  it("file contents: base64 decoded to text; binary files described, not sent", () => {
    const source = "export const answer = 42;\n";
    const file = { type: "file", encoding: "base64", size: source.length, name: "answer.ts", path: "src/answer.ts", content: Buffer.from(source).toString("base64").replace(/(.{60})/g, "$1\n"), sha: "3d21ec53a331a6f037a91c368710b99387d012c1", url: "https://api.github.com/repos/o/r/contents/src/answer.ts", git_url: "https://api.github.com/repos/o/r/git/blobs/3d21", html_url: "https://github.com/o/r/blob/main/src/answer.ts", download_url: "https://raw.githubusercontent.com/o/r/main/src/answer.ts", _links: { self: "x", git: "y", html: "z" } };
    expect(run("github-rest", "repos_get_content", file)).toEqual({ type: "file", encoding: "utf-8", size: source.length, name: "answer.ts", path: "src/answer.ts", content: source, sha: "3d21ec53a331a6f037a91c368710b99387d012c1", html_url: "https://github.com/o/r/blob/main/src/answer.ts", download_url: "https://raw.githubusercontent.com/o/r/main/src/answer.ts" });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(run("github-rest", "git_get_blob", { sha: "ab", size: png.length, encoding: "base64", content: png.toString("base64") })).toEqual({ sha: "ab", size: png.length, encoding: "none", content: `binary, ${png.length} bytes (not shown)` });
  });

  it("cursor-paged webhook deliveries surface next_cursor", () => {
    const output = run("github-rest", "repos_list_webhook_deliveries", [{ id: 1, guid: "g" }], { headers: { link: '<https://api.github.com/repos/o/r/hooks/1/deliveries?per_page=1&cursor=v1_12345>; rel="next"' } });
    expect(output).toEqual({ items: [{ id: 1, guid: "g" }], has_more: true, next_cursor: "v1_12345" });
  });
});

// ---------------------------------------------------------------------------------------
// Stripe

function stripeCustomer(i: number) {
  return {
    id: `cus_P${i}xYzAbCdEf`,
    object: "customer",
    address: null,
    balance: 0,
    created: 1705339800 + i,
    currency: null,
    default_source: { id: `card_1Oa${i}`, object: "card", brand: "Visa", last4: "4242", exp_month: 12, exp_year: 2030, customer: `cus_P${i}xYzAbCdEf`, address_city: null, address_country: null, address_line1: null, address_line1_check: null, address_line2: null, address_state: null, address_zip: null, address_zip_check: null, country: "US", cvc_check: "pass", dynamic_last4: null, fingerprint: "Xt5EWLLDS7FJjR1c", funding: "credit", metadata: {}, name: null, tokenization_method: null, wallet: null },
    delinquent: false,
    description: null,
    discount: null,
    email: `jenny.rosen${i}@example.com`,
    invoice_prefix: `1B2C3D${i}`,
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: {},
    name: `Jenny Rosen ${i}`,
    next_invoice_sequence: 1,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: "none",
    test_clock: null,
  };
}

describe("stripe", () => {
  it("lists: nulls and empty metadata go, expanded references collapse to ids, has_more stays when false", () => {
    const body = { object: "list", url: "/v1/customers", has_more: false, data: [stripeCustomer(1), stripeCustomer(2), stripeCustomer(3)] };
    const output = run("stripe", "get_customers", body) as Record<string, any>;
    expect(output.has_more).toBe(false);
    expect(output).not.toHaveProperty("object");
    expect(output).not.toHaveProperty("url");
    expect(output.data.map((c: any) => c.id)).toEqual(body.data.map((c) => c.id));
    expect(output.data[0]).toEqual({ id: "cus_P1xYzAbCdEf", object: "customer", balance: 0, created: 1705339801, default_source: "card_1Oa1", delinquent: false, email: "jenny.rosen1@example.com", name: "Jenny Rosen 1" });
    measured("stripe get_customers (3 customers)", body, output, 2);
  });

  it("list items are summaries by object type: amounts with currency, status, references, description cut; nested lists too", () => {
    const description = "Order for the spring catalogue. ".repeat(10);
    const charge = { id: "ch_1", object: "charge", amount: 2000, currency: "usd", status: "succeeded", paid: true, customer: "cus_1", description, statement_descriptor: "ACME", fraud_details: {}, outcome: { network_status: "approved_by_network", risk_level: "normal", type: "authorized" }, billing_details: { name: "Jenny" }, metadata: { order_id: "6735" } };
    const output = run("stripe", "get_charges", { object: "list", url: "/v1/charges", has_more: true, data: [charge] }) as Record<string, any>;
    expect(output.has_more).toBe(true);
    expect(output.data[0]).toEqual({ id: "ch_1", object: "charge", amount: 2000, currency: "usd", status: "succeeded", paid: true, customer: "cus_1", description: `${description.slice(0, 120)}… [+${description.length - 120} chars; whole text via get]` });
    // A customer's get keeps its own members; its subscriptions list becomes summaries with has_more kept.
    const customer = { ...stripeCustomer(1), subscriptions: { object: "list", url: "/v1/customers/cus_1/subscriptions", has_more: false, data: [{ id: "sub_1", object: "subscription", status: "active", customer: "cus_1", billing_thresholds: { amount_gte: 1 }, items: { object: "list", url: "/v1/subscription_items?subscription=sub_1", has_more: false, data: [{ id: "si_1", object: "subscription_item", quantity: 2, billing_thresholds: { usage_gte: 1 }, price: { id: "price_1", object: "price", unit_amount: 2000, currency: "usd", recurring: { interval: "month" }, tiers_mode: "graduated", product: "prod_1" } }] } }] } };
    const single = run("stripe", "get_customers_customer", customer) as Record<string, any>;
    expect(single.invoice_prefix).toBe("1B2C3D1");
    expect(single.subscriptions).toEqual({ url: "/v1/customers/cus_1/subscriptions", has_more: false, data: [{ id: "sub_1", object: "subscription", status: "active", customer: "cus_1", items: { url: "/v1/subscription_items?subscription=sub_1", has_more: false, data: [{ id: "si_1", object: "subscription_item", quantity: 2, price: { id: "price_1", object: "price", unit_amount: 2000, currency: "usd", recurring: { interval: "month" }, product: "prod_1" } }] } }] });
  });

  it("a call that asks for expand keeps the expanded objects", () => {
    const body = { object: "list", url: "/v1/customers", has_more: true, data: [stripeCustomer(1)] };
    const output = run("stripe", "get_customers", body, { args: { expand: ["data.default_source"] } }) as Record<string, any>;
    expect(output.has_more).toBe(true);
    expect(output.data[0].default_source).toMatchObject({ id: "card_1Oa1", last4: "4242" });
  });

  it("embedded objects that are part of their parent stay whole (a subscription item's price)", () => {
    const item = { id: "si_1", object: "subscription_item", price: { id: "price_1", object: "price", unit_amount: 2000, currency: "usd", recurring: { interval: "month" } }, quantity: 1, subscription: { id: "sub_1", object: "subscription", status: "active" } };
    const output = run("stripe", "get_subscription_items_item", item) as Record<string, any>;
    expect(output.price).toMatchObject({ id: "price_1", unit_amount: 2000 });
    expect(output.subscription).toBe("sub_1");
  });

  it("search results keep next_page and has_more", () => {
    const body = { object: "search_result", url: "/v1/customers/search", has_more: true, next_page: "WzE3MDUzMzk4MDBd", total_count: 42, data: [stripeCustomer(1)] };
    const output = run("stripe", "get_customers_search", body) as Record<string, any>;
    expect(output).toMatchObject({ has_more: true, next_page: "WzE3MDUzMzk4MDBd", total_count: 42 });
  });

  it("the spec's expandable fields are what the handler treats as references", async () => {
    const { readFileSync } = await import("node:fs");
    const { EXPANDABLE_FIELDS, isReferenceField } = await import("../packs/stripe/src/responses.ts");
    const spec = JSON.parse(readFileSync(new URL("../packs/stripe/spec/spec3.json", import.meta.url), "utf8")) as { components: { schemas: Record<string, any> } };
    const schemas = spec.components.schemas;
    const names = new Set<string>();
    const wrong: string[] = [];
    const refsOf = (schema: any): string[] => {
      const out: string[] = [];
      const walk = (node: any) => {
        if (node === null || typeof node !== "object") return;
        if (typeof node.$ref === "string") out.push(node.$ref.split("/").pop());
        for (const k of ["anyOf", "oneOf", "allOf"]) for (const branch of node[k] ?? []) walk(branch);
      };
      walk(schema);
      return out;
    };
    for (const [name, schema] of Object.entries(schemas)) {
      // Error bodies never reach a handler: failures are thrown before it runs.
      if (name === "api_errors") continue;
      const tag: string | undefined = schema.properties?.object?.enum?.[0];
      for (const [field, property] of Object.entries<any>(schema.properties ?? {})) {
        if (property["x-expansionResources"]) {
          names.add(field);
          // One known clash: an untagged parent holds `discount` expandable in one schema, embedded in another.
          if (!isReferenceField(tag, field) && !(tag === undefined && field === "discount")) wrong.push(`${name}.${field} is expandable`);
        } else if (refsOf(property).some((ref) => schemas[ref]?.properties?.id && schemas[ref]?.properties?.object) && isReferenceField(tag, field)) {
          wrong.push(`${name}.${field} is embedded`);
        }
      }
    }
    expect([...EXPANDABLE_FIELDS].sort()).toEqual([...names].sort());
    expect(wrong).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------
// Slack

function slackMessage(i: number, extra: Record<string, unknown> = {}) {
  const text = `Deploy ${i} is out: the retry fix for webhook pages landed.`;
  return {
    user: "U061F7AUR",
    type: "message",
    ts: `1705339800.00${100 + i}`,
    client_msg_id: `6f1f0c1e-1b1a-4c5d-9e1f-0000000000${10 + i}`,
    text,
    team: "T061EG9R6",
    blocks: [{ type: "rich_text", block_id: `b${i}Xy`, elements: [{ type: "rich_text_section", elements: [{ type: "text", text }] }] }],
    reactions: [{ name: "tada", users: ["U0G9QF9C6", "U0G9QF9C7"], count: 2 }],
    ...extra,
  };
}

describe("slack", () => {
  it("items of a list nested in arrays (the spec's schema for conversations.list) are reshaped like a flat list's", () => {
    const channel = (id: string) => ({ id, name: `c-${id}`, is_private: true, is_channel: true, is_frozen: false, created: 1, topic: { value: "t", creator: "U1", last_set: 0 }, purpose: { value: "p", creator: "U1", last_set: 0 }, num_members: 3 });
    const output = run("slack", "conversations_list", { ok: true, channels: [[channel("C1"), channel("C2")], [channel("C3")]], response_metadata: { next_cursor: "dGVhbTpD" } }) as Record<string, any>;
    const slim = (id: string) => ({ id, name: `c-${id}`, kind: "private", num_members: 3, topic: "t", purpose: "p" });
    expect(output).toEqual({ channels: [[slim("C1"), slim("C2")], [slim("C3")]], response_metadata: { next_cursor: "dGVhbTpD" } });
  });

  it("conversations.history: messages slimmed, blocks dropped, files as {id, name}, has_more and next_cursor kept", () => {
    const file = { id: "F0123ABC", created: 1705339800, timestamp: 1705339800, name: "q3.pdf", title: "Q3", mimetype: "application/pdf", filetype: "pdf", pretty_type: "PDF", user: "U061F7AUR", user_team: "T061EG9R6", editable: false, size: 182_345, mode: "hosted", is_external: false, external_type: "", is_public: true, public_url_shared: false, display_as_bot: false, username: "", url_private: "https://files.slack.com/files-pri/T061EG9R6-F0123ABC/q3.pdf", url_private_download: "https://files.slack.com/files-pri/T061EG9R6-F0123ABC/download/q3.pdf", media_display_type: "unknown", thumb_pdf: "https://files.slack.com/files-tmb/T061EG9R6-F0123ABC-abc/q3_thumb_pdf.png", thumb_pdf_w: 909, thumb_pdf_h: 1286, permalink: "https://example.slack.com/files/U061F7AUR/F0123ABC/q3.pdf", permalink_public: "https://slack-files.com/T061EG9R6-F0123ABC-0123456789", has_rich_preview: false, file_access: "visible" };
    const bot = { type: "message", subtype: "bot_message", ts: "1705339800.000300", bot_id: "B0123", username: "CI", text: "", blocks: [{ type: "section", text: { type: "mrkdwn", text: "*Build 512* passed" } }, { type: "context", elements: [{ type: "mrkdwn", text: "main @ a1b2c3d" }] }], bot_profile: { id: "B0123", deleted: false, name: "CI", updated: 1700000000, app_id: "A0123", icons: { image_36: "https://a.slack-edge.com/36.png", image_48: "https://a.slack-edge.com/48.png", image_72: "https://a.slack-edge.com/72.png" }, team_id: "T061EG9R6" } };
    const body = {
      ok: true,
      messages: [slackMessage(1, { thread_ts: "1705339800.000101", reply_count: 3, reply_users_count: 2, latest_reply: "1705339900.000100", reply_users: ["U0G9QF9C6"], is_locked: false, subscribed: false }), slackMessage(2, { files: [file], upload: false, display_as_bot: false }), bot],
      has_more: false,
      pin_count: 0,
      channel_actions_ts: null,
      channel_actions_count: 0,
      response_metadata: { next_cursor: "" },
    };
    const output = run("slack", "conversations_history", body) as Record<string, any>;
    expect(output.has_more).toBe(false);
    expect(output.response_metadata).toEqual({ next_cursor: "" });
    expect(output).not.toHaveProperty("ok");
    expect(output.messages[0]).toEqual({ ts: "1705339800.00101", user: "U061F7AUR", text: "Deploy 1 is out: the retry fix for webhook pages landed.", thread_ts: "1705339800.000101", reply_count: 3, latest_reply: "1705339900.000100", reactions: [{ name: "tada", count: 2 }] });
    expect(output.messages[1].files).toEqual([{ id: "F0123ABC", name: "q3.pdf", mimetype: "application/pdf" }]);
    // A bot message without text: its blocks' text stands in.
    expect(output.messages[2]).toEqual({ ts: "1705339800.000300", bot_id: "B0123", username: "CI", subtype: "bot_message", text: "*Build 512* passed\nmain @ a1b2c3d" });
    measured("slack conversations_history (3 messages)", body, output, 2);

    const more = run("slack", "conversations_history", { ...body, has_more: true, response_metadata: { next_cursor: "bmV4dF90czoxNzA1MzM5ODAwMDAwMTAw" } });
    expect(more).toMatchObject({ has_more: true, response_metadata: { next_cursor: "bmV4dF90czoxNzA1MzM5ODAwMDAwMTAw" } });
  });

  it("conversations.list and users.list: channels and members reduced to what identifies them", () => {
    const channel = { id: "C012AB3CD", name: "general", is_channel: true, is_group: false, is_im: false, is_mpim: false, is_private: false, created: 1449252889, is_archived: false, is_general: true, unlinked: 0, name_normalized: "general", is_shared: false, is_org_shared: false, is_pending_ext_shared: false, pending_shared: [], context_team_id: "T012AB3C4", updated: 1678229664302, parent_conversation: null, creator: "U012A3CDE", is_ext_shared: false, shared_team_ids: ["T012AB3C4"], pending_connected_team_ids: [], is_member: true, topic: { value: "Company-wide announcements", creator: "U012A3CDE", last_set: 1449709364 }, purpose: { value: "This channel is for team-wide communication.", creator: "U012A3CDE", last_set: 1449709352 }, previous_names: [], num_members: 4 };
    const channels = { ok: true, channels: [channel, { ...channel, id: "C061EG9T2", name: "random", is_general: false, is_private: true, is_member: false }], response_metadata: { next_cursor: "dGVhbTpDMDYxRkE1UEI=" } };
    const output = run("slack", "conversations_list", channels) as Record<string, any>;
    expect(output.channels).toEqual([
      { id: "C012AB3CD", name: "general", is_member: true, num_members: 4, topic: "Company-wide announcements", purpose: "This channel is for team-wide communication." },
      { id: "C061EG9T2", name: "random", kind: "private", is_member: false, num_members: 4, topic: "Company-wide announcements", purpose: "This channel is for team-wide communication." },
    ]);
    expect(output.response_metadata.next_cursor).toBe("dGVhbTpDMDYxRkE1UEI=");
    measured("slack conversations_list (2 channels)", channels, output, 2);

    const member = { id: "W012A3CDE", team_id: "T012AB3C4", name: "spengler", deleted: false, color: "9f69e7", real_name: "Egon Spengler", tz: "America/Los_Angeles", tz_label: "Pacific Daylight Time", tz_offset: -25200, profile: { avatar_hash: "ge3b51ca72de", status_text: "Print is dead", status_emoji: ":books:", real_name: "Egon Spengler", display_name: "spengler", real_name_normalized: "Egon Spengler", display_name_normalized: "spengler", email: "spengler@ghostbusters.example.com", image_24: "https://.../24.jpg", image_32: "https://.../32.jpg", image_48: "https://.../48.jpg", image_72: "https://.../72.jpg", image_192: "https://.../192.jpg", image_512: "https://.../512.jpg", team: "T012AB3C4" }, is_admin: true, is_owner: false, is_primary_owner: false, is_restricted: false, is_ultra_restricted: false, is_bot: false, updated: 1502138686, is_app_user: false, has_2fa: false };
    const users = { ok: true, members: [member], cache_ts: 1498777272, response_metadata: { next_cursor: "dXNlcjpVMEc5V0ZYTlo=" } };
    const slim = run("slack", "users_list", users) as Record<string, any>;
    expect(slim.members).toEqual([{ id: "W012A3CDE", name: "spengler", real_name: "Egon Spengler", display_name: "spengler", email: "spengler@ghostbusters.example.com", tz: "America/Los_Angeles", is_admin: true }]);
    measured("slack users_list (1 member)", users, slim, 3);
  });
});

// ---------------------------------------------------------------------------------------
// Notion

function richText(text: string) {
  return [{ type: "text", text: { content: text, link: null }, annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: "default" }, plain_text: text, href: null }];
}

function notionPage(i: number) {
  const user = { object: "user", id: "ee5f0f84-409a-440f-983a-a5315961c6e4" };
  return {
    object: "page",
    id: `59833787-2cf9-4fdf-8782-e53db20768a${i}`,
    created_time: "2024-01-15T09:30:00.000Z",
    last_edited_time: "2024-01-16T10:00:00.000Z",
    created_by: user,
    last_edited_by: user,
    cover: { type: "external", external: { url: "https://upload.wikimedia.org/wikipedia/commons/6/62/Tuscankale.jpg" } },
    icon: { type: "emoji", emoji: "🥬" },
    parent: { type: "data_source_id", data_source_id: "d9824bdc-8445-4327-be8b-5b47500af6ce", database_id: "a1d8501e-1ac1-43e9-a6bd-ea9fe6c8822b" },
    archived: false,
    in_trash: false,
    properties: {
      Name: { id: "title", type: "title", title: richText(`Tuscan kale ${i}`) },
      Status: { id: "s%3Ae", type: "status", status: { id: "f0b8", name: "In progress", color: "blue" } },
      Tags: { id: "%40Q%5E", type: "multi_select", multi_select: [{ id: "a1", name: "Vegetable", color: "green" }, { id: "a2", name: "Leafy", color: "yellow" }] },
      Price: { id: "BJXS", type: "number", number: 2.5 },
      "In stock": { id: "O%5CUF", type: "checkbox", checkbox: false },
      Due: { id: "ml%3Ba", type: "date", date: { start: "2024-02-01", end: null, time_zone: null } },
      Owner: { id: "Hfks", type: "people", people: [{ object: "user", id: "ee5f0f84-409a-440f-983a-a5315961c6e4", name: "Ada Lovelace", avatar_url: null, type: "person", person: { email: "ada@example.com" } }] },
      Notes: { id: "fy%3A%7B", type: "rich_text", rich_text: richText("A dark green leafy vegetable") },
      Recipes: { id: "%3DL%5B", type: "relation", relation: [{ id: "1b2c3d4e-0000-0000-0000-000000000001" }], has_more: false },
      Score: { id: "zx", type: "formula", formula: { type: "number", number: 42 } },
      Ticket: { id: "uid", type: "unique_id", unique_id: { prefix: "VEG", number: 100 + i } },
      Empty: { id: "e", type: "rich_text", rich_text: [] },
    },
    url: `https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a${i}`,
    public_url: null,
  };
}

describe("notion", () => {
  it("data source query: property values flattened, ids, has_more and next_cursor kept", () => {
    const body = { object: "list", results: [notionPage(1), notionPage(2)], next_cursor: "fe2cc560-036c-44cd-90e8-294d5a74cebc", has_more: true, type: "page_or_data_source", page_or_data_source: {}, request_id: "8a5b7b8e-1111-2222-3333-444455556666" };
    const output = run("notion", "query_data_source", body) as Record<string, any>;
    expect(output.has_more).toBe(true);
    expect(output.next_cursor).toBe("fe2cc560-036c-44cd-90e8-294d5a74cebc");
    expect(output).not.toHaveProperty("request_id");
    expect(output).not.toHaveProperty("page_or_data_source");
    expect(output.results[0]).toEqual({
      object: "page",
      id: "59833787-2cf9-4fdf-8782-e53db20768a1",
      created_time: "2024-01-15T09:30:00.000Z",
      last_edited_time: "2024-01-16T10:00:00.000Z",
      created_by: "ee5f0f84-409a-440f-983a-a5315961c6e4",
      last_edited_by: "ee5f0f84-409a-440f-983a-a5315961c6e4",
      icon: "🥬",
      parent: { data_source_id: "d9824bdc-8445-4327-be8b-5b47500af6ce", database_id: "a1d8501e-1ac1-43e9-a6bd-ea9fe6c8822b" },
      archived: false,
      in_trash: false,
      properties: {
        Name: "Tuscan kale 1",
        Status: "In progress",
        Tags: ["Vegetable", "Leafy"],
        Price: 2.5,
        "In stock": false,
        Due: "2024-02-01",
        Owner: [{ id: "ee5f0f84-409a-440f-983a-a5315961c6e4", name: "Ada Lovelace", email: "ada@example.com" }],
        Notes: "A dark green leafy vegetable",
        Recipes: ["1b2c3d4e-0000-0000-0000-000000000001"],
        Score: 42,
        Ticket: "VEG-101",
      },
      url: "https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a1",
    });
    measured("notion query_data_source (2 pages)", body, output, 2.5);

    const last = run("notion", "query_data_source", { ...body, results: [], next_cursor: null, has_more: false });
    expect(last).toEqual({ results: [], has_more: false });
  });

  it("a users list keeps each user; users inside other objects become references", () => {
    const users = { object: "list", results: [{ object: "user", id: "u1", type: "person", name: "Ada Lovelace", avatar_url: "https://s3.us-west-2.amazonaws.com/public.notion-static.com/a.png", person: { email: "ada@example.com" } }, { object: "user", id: "b1", type: "bot", name: "Importer", avatar_url: null, bot: {} }], next_cursor: null, has_more: false, type: "user", user: {}, request_id: "r" };
    expect(run("notion", "get_users", users)).toEqual({ results: [{ object: "user", id: "u1", type: "person", name: "Ada Lovelace", avatar_url: "https://s3.us-west-2.amazonaws.com/public.notion-static.com/a.png", person: { email: "ada@example.com" } }, { object: "user", id: "b1", type: "bot", name: "Importer" }], has_more: false });
  });

  it("search and block children: titles and rich text as plain text", () => {
    const search = { object: "list", results: [{ object: "data_source", id: "d9824bdc-8445-4327-be8b-5b47500af6ce", title: richText("Grocery list"), description: [], properties: { Name: { id: "title", name: "Name", type: "title", title: {} } }, parent: { type: "database_id", database_id: "a1d8501e-1ac1-43e9-a6bd-ea9fe6c8822b" }, url: "https://www.notion.so/d9824bdc", archived: false }], next_cursor: null, has_more: false, type: "page_or_data_source", page_or_data_source: {} };
    const output = run("notion", "post_search", search) as Record<string, any>;
    expect(output.results[0]).toMatchObject({ id: "d9824bdc-8445-4327-be8b-5b47500af6ce", title: "Grocery list", parent: { database_id: "a1d8501e-1ac1-43e9-a6bd-ea9fe6c8822b" } });
    expect(output.has_more).toBe(false);

    const blocks = { object: "list", results: [{ object: "block", id: "c02fc1d3-db8b-45c5-a222-27595b15aea7", parent: { type: "page_id", page_id: "59833787-2cf9-4fdf-8782-e53db20768a5" }, created_time: "2024-01-15T09:30:00.000Z", last_edited_time: "2024-01-15T09:30:00.000Z", created_by: { object: "user", id: "ee5f" }, last_edited_by: { object: "user", id: "ee5f" }, has_children: false, archived: false, in_trash: false, type: "heading_2", heading_2: { rich_text: richText("Lacinato kale"), color: "default", is_toggleable: false } }], next_cursor: null, has_more: false, type: "block", block: {} };
    const slim = run("notion", "get_block_children", blocks) as Record<string, any>;
    expect(slim.results[0].heading_2).toEqual({ rich_text: "Lacinato kale", is_toggleable: false });
    expect(slim.results[0].type).toBe("heading_2");
    measured("notion get_block_children (1 block)", blocks, slim, 1.5);
  });
});

// ---------------------------------------------------------------------------------------
// GraphQL packs

describe("linear and github graphql", () => {
  it("linear issues: data.issues unwrapped, nulls and sort keys gone, related objects by id, hasNextPage kept when false", () => {
    const node = (i: number) => ({
      id: `8c7f3a0e-0000-4000-8000-00000000000${i}`,
      identifier: `ENG-${100 + i}`,
      title: `Retry fix ${i}`,
      description: null,
      priority: 2,
      priorityLabel: "High",
      estimate: null,
      sortOrder: -1234.56,
      prioritySortOrder: 12.5,
      subIssueSortOrder: null,
      boardOrder: 0,
      createdAt: "2024-01-15T09:30:00.000Z",
      updatedAt: "2024-01-16T10:00:00.000Z",
      archivedAt: null,
      canceledAt: null,
      completedAt: null,
      dueDate: null,
      labelIds: [],
      previousIdentifiers: [],
      assignee: { id: "u-1" },
      creator: { id: "u-2" },
      state: { id: "s-1" },
      team: { id: "t-1" },
      project: null,
      cycle: null,
      parent: null,
      snoozedBy: null,
      url: `https://linear.app/acme/issue/ENG-${100 + i}`,
      branchName: `ada/eng-${100 + i}-retry-fix`,
      customerTicketCount: 0,
      trashed: null,
      reactionData: [],
    });
    const body = { data: { issues: { nodes: [node(1), node(2), node(3)], pageInfo: { hasNextPage: false, endCursor: "8c7f3a0e-0000-4000-8000-000000000003" } } } };
    const output = run("linear", "issues_list", body) as Record<string, any>;
    expect(output.pageInfo).toEqual({ hasNextPage: false, endCursor: "8c7f3a0e-0000-4000-8000-000000000003" });
    // A list item is a summary: handles, title, state, priority, people, team, dates.
    expect(output.nodes[0]).toEqual({ id: "8c7f3a0e-0000-4000-8000-000000000001", identifier: "ENG-101", title: "Retry fix 1", priority: 2, createdAt: "2024-01-15T09:30:00.000Z", updatedAt: "2024-01-16T10:00:00.000Z", assignee: "u-1", creator: "u-2", state: "s-1", team: "t-1", url: "https://linear.app/acme/issue/ENG-101" });
    measured("linear issues_list (3 issues)", body, output, 2.3);
    // The *_full twin and the curated tool share the handler.
    expect(run("linear", "issues_list_full", body)).toEqual(output);
  });

  it("linear list items: long descriptions cut with a marker, every id kept; a get keeps the whole text and drops UI noise", () => {
    const description = "Steps to reproduce. ".repeat(30);
    const issue = { id: "i-1", identifier: "ENG-1", title: "Crash", description, reactionData: [{ emoji: "+1", users: ["u-1"] }], activitySummary: { n: 3 }, color: "#fff", branchName: "eng-1-crash", slaType: "all" };
    const list = run("linear", "issues_list", { data: { issues: { nodes: [issue, { id: "i-2", title: "Other" }], pageInfo: { hasNextPage: true, endCursor: "c2" } } } }) as Record<string, any>;
    expect(list.nodes.map((n: { id: string }) => n.id)).toEqual(["i-1", "i-2"]);
    expect(list.pageInfo).toEqual({ hasNextPage: true, endCursor: "c2" });
    expect(list.nodes[0].description).toBe(`${description.slice(0, 120)}… [+${description.length - 120} chars; whole text via get]`);
    // A text barely over the limit stays whole: the marker would make it longer.
    const barely = "x".repeat(150);
    const short = run("linear", "issues_list", { data: { issues: { nodes: [{ id: "i-3", description: barely }], pageInfo: { hasNextPage: false } } } }) as Record<string, any>;
    expect(short.nodes[0].description).toBe(barely);
    expect(list.nodes[0]).not.toHaveProperty("branchName");
    const single = run("linear", "issue", { data: { issue } }) as Record<string, unknown>;
    expect(single).toEqual({ id: "i-1", identifier: "ENG-1", title: "Crash", description, branchName: "eng-1-crash", slaType: "all" });
    // Teams, users, cycles, comments: each keeps its own handles.
    const teams = run("linear", "teams_list", { data: { teams: { nodes: [{ id: "t-1", key: "ENG", name: "Engineering", color: "#f00", cycleCooldownTime: 1, autoArchivePeriod: 6 }], pageInfo: { hasNextPage: false } } } }) as Record<string, any>;
    expect(teams.nodes).toEqual([{ id: "t-1", key: "ENG", name: "Engineering" }]);
    // A type without a summary keeps every pruned member.
    const customers = run("linear", "customers_list", { data: { customers: { nodes: [{ id: "c-1", name: "Acme", domains: ["acme.com"], revenue: 5, logoUrl: null }], pageInfo: { hasNextPage: false } } } }) as Record<string, any>;
    expect(customers.nodes[0]).toEqual({ id: "c-1", name: "Acme", domains: ["acme.com"], revenue: 5 });
  });

  it("github repository: HTML twins, resource paths, hovercards and the clone token go; text, url, ids and template names stay", () => {
    const body = { data: { repository: { id: "R_1", name: "hello", url: "https://github.com/octo/hello", description: "Hi", descriptionHTML: "<div>Hi</div>", resourcePath: "/octo/hello", projectsResourcePath: "/octo/hello/projects", tempCloneToken: "secret", openGraphImageUrl: "https://og/x.png", codeowners: { errors: [{ line: 1, message: "bad" }] }, owner: { id: "U_1" }, issueTemplates: [{ name: "Bug", about: "Report a bug", filename: "bug.md", body: "## Steps\n..." }] } } };
    expect(run("github", "repository", body)).toEqual({ id: "R_1", name: "hello", url: "https://github.com/octo/hello", description: "Hi", owner: "U_1", issueTemplates: [{ name: "Bug", about: "Report a bug", filename: "bug.md" }] });
  });

  it("github search: connection unwrapped, typed nodes kept with their ids", () => {
    const body = { data: { search: { issueCount: 2, nodes: [{ __typename: "Issue", id: "I_1" }, { __typename: "PullRequest", id: "PR_2" }, null], pageInfo: { hasNextPage: true, endCursor: "Y3Vyc29yOjI=" } } } };
    expect(run("github", "search_list", body)).toEqual({ issueCount: 2, nodes: [{ __typename: "Issue", id: "I_1" }, { __typename: "PullRequest", id: "PR_2" }], pageInfo: { hasNextPage: true, endCursor: "Y3Vyc29yOjI=" } });
  });
});

// ---------------------------------------------------------------------------------------
// Totality

/** A seeded generator of JSON values built from the keys these handlers look at. */
function oddValues(seed: number, count: number): unknown[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const KEYS = ["id", "data", "issues", "nodes", "edges", "node", "pageInfo", "hasNextPage", "endCursor", "payload", "parts", "headers", "body", "mimeType", "filename", "raw", "attachmentId", "size", "messages", "files", "blocks", "text", "elements", "user", "login", "owner", "full_name", "object", "has_more", "next_cursor", "response_metadata", "results", "properties", "type", "title", "rich_text", "plain_text", "people", "relation", "rollup", "formula", "url", "html_url", "verified", "total_count", "+1", "__proto__", "constructor", "expand", "channels", "members", "profile", "topic", "value", "name", "snippet", "labelIds", "search"];
  const leaf = () => pick<unknown>([null, true, false, 0, -1, 1.5, "", "x", "text/plain", "multipart/alternative", "page", "list", "user", "emoji", "=?UTF-8?B?w6k=?=", "<p>hi</p>", "aGVsbG8", "%%%", "\u0000", "🥬"]);
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 5 || r < 0.35) return leaf();
    if (r < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 6); i > 0; i--) Object.defineProperty(out, pick(KEYS), { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
    return out;
  };
  return Array.from({ length: count }, () => value(0));
}

describe("every handler is total", () => {
  // Distinct handlers; the GraphQL packs make one per root field, all alike, so a few of those do.
  const handlers = new Map<ResponseHandler, string>();
  for (const [pack, module] of Object.entries(PACKS)) {
    let fromPack = 0;
    for (const tool of module.allTools as readonly Tool<object>[]) {
      if (tool.responseHandler === undefined || handlers.has(tool.responseHandler)) continue;
      if (tool.binding.kind === "graphql" && ++fromPack > 3) continue;
      handlers.set(tool.responseHandler, `${pack}/${tool.name}`);
    }
  }

  it("finds the handlers", () => {
    expect(handlers.size).toBeGreaterThanOrEqual(12);
  });

  it("odd shapes in: no throw, no fallback to the raw body, JSON out", () => {
    const shapes: unknown[] = [
      null, 0, "", "plain text", [], {}, [[[]]], { data: null }, { data: { issues: 5 } }, { data: { issues: { nodes: "x", pageInfo: null } } },
      { messages: "x" }, { payload: 5 }, { payload: { parts: "x", headers: "y", body: { data: 7 } } }, { payload: { mimeType: "multipart/alternative", parts: [null, 1, { mimeType: "text/plain", body: { data: "!!!" } }] } },
      { raw: "!!!" }, { raw: b64url("Content-Type: multipart/mixed; boundary=\r\n\r\n--\r\n") }, { attachmentId: 5, data: {} }, JSON.parse('{"__proto__": {"id": 1}, "constructor": {"login": "x", "id": 1}}'),
      { object: "list", data: "x" }, { object: "list", results: null }, { properties: { x: { type: "rollup", rollup: { type: "array", array: "x" } } }, object: "page" },
      ...oddValues(7, 300),
    ];
    for (const [handler, where] of handlers) {
      for (const body of shapes) {
        let output: unknown;
        expect(() => (output = handler(body, { tool: where, status: 200, headers: { link: "<?page=x>; rel=next" }, args: {} })), `${where} on ${JSON.stringify(body)}`).not.toThrow();
        expect(() => JSON.stringify(output), where).not.toThrow();
        // A handler that threw inside would have handed the same object back (neverThrows).
        if (typeof body === "object" && body !== null) expect(output === body, `${where} fell back on ${JSON.stringify(body)}`).toBe(false);
      }
    }
  });

  it("nesting deep enough to exhaust recursion still gives an answer", () => {
    let deep: unknown = { id: "leaf" };
    for (let i = 0; i < 200_000; i++) deep = [deep];
    for (const [handler, where] of handlers) {
      expect(() => handler(deep, { tool: where, status: 200, headers: {}, args: {} }), where).not.toThrow();
    }
  });
});
