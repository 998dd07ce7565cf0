import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** One page of tools/list as the SDK client returns it. */
export type ToolPage = Awaited<ReturnType<Client["listTools"]>>;

/** Every page of a server's tools/list, in order, each asked with the cursor the one before handed out. */
export async function listToolPages(client: Pick<Client, "listTools">): Promise<ToolPage[]> {
  const pages: ToolPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}
