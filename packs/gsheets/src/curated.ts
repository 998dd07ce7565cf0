/**
 * Curated Google Sheets tools (hand-written).
 *  - `sheets_spreadsheets_batch_update` keeps the value and format edits (write cells,
 *    format a range, append rows, borders, merges, find and replace); the full tool
 *    offers ~70 request kinds, charts, pivots and data sources among them, and a cell
 *    is narrowed to its value, format and note.
 *  - `sheets_spreadsheets_create` keeps the spreadsheet title, locale, time zone and the
 *    sheets' titles.
 *  - Google's transport parameters (credentials, JSONP callback, response format) are
 *    withheld everywhere: credentials come from the binding's auth, not the model.
 */
import { curate, curateEach, withoutArguments, type Tool } from "@sluice/core/pack";
import * as generated from "./tools.gen.ts";

const GOOGLE_TRANSPORT_PARAMETERS = ["__xgafv", "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint", "quotaUser", "uploadType", "upload_protocol"];

const VALUE_AND_FORMAT_EDITS = ["updateCells", "repeatCell", "appendCells", "updateBorders", "mergeCells", "unmergeCells", "findReplace"];

export const sheetsSpreadsheetsBatchUpdate = curate(generated.sheetsSpreadsheetsBatchUpdate, {
  description:
    "Edit cell values and formats in a Google Sheet. Each request is one of: updateCells, repeatCell, appendCells, updateBorders, mergeCells, unmergeCells, findReplace. Requests apply in order, atomically.",
  keep: [
    "spreadsheetId",
    "requests",
    "includeSpreadsheetInResponse",
    ...VALUE_AND_FORMAT_EDITS.map((kind) => `requests.${kind}`),
    // A cell is its value, its format and a note; pivot tables, data validation and
    // data-source cells stay with the full tool.
    "CellData.userEnteredValue",
    "CellData.userEnteredFormat",
    "CellData.note",
  ],
});

export const sheetsSpreadsheetsCreate = curate(generated.sheetsSpreadsheetsCreate, {
  description: "Create a Google Sheet with a title and, optionally, named sheets. Returns the new spreadsheet, including its spreadsheetId.",
  keep: ["properties", "sheets", "properties.title", "properties.locale", "properties.timeZone", "sheets.properties", "sheets.properties.title"],
});

const handCurated = [sheetsSpreadsheetsBatchUpdate, sheetsSpreadsheetsCreate];

export const curated: readonly Tool<object>[] = [
  ...handCurated,
  ...curateEach(generated.tools, withoutArguments(GOOGLE_TRANSPORT_PARAMETERS), { except: handCurated }),
];
