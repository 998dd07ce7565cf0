/**
 * Every pack's index exports `credentialsFromEnv` and a credentials type keyed by its
 * security scheme names: the credentials a user finds without reading runtime.gen.ts.
 */
import { describe, expect, it } from "vitest";
import * as gmail from "@sluice/pack-gmail";
import * as githubRest from "@sluice/pack-github-rest";
import * as linear from "@sluice/pack-linear";
import * as stripe from "@sluice/pack-stripe";
import { isOAuth2Credential } from "@sluice/core";

describe("credentialsFromEnv from a pack's index", () => {
  it("keys the credentials by the spec's scheme names", () => {
    const credentials: stripe.StripeCredentials = stripe.credentialsFromEnv({ STRIPE_BEARER_AUTH: "sk_test_1", STRIPE_BASIC_AUTH: "sk_test_1:" });
    expect(credentials).toEqual({ basicAuth: { username: "sk_test_1", password: "" }, bearerAuth: { token: "sk_test_1" } });
    expect(linear.credentialsFromEnv({ LINEAR_TOKEN: "lin_api_x" })).toEqual({ token: { token: "lin_api_x" } });
    expect(githubRest.credentialsFromEnv({ GH_TOKEN: " ghp_x " })).toEqual({ bearer: { token: "ghp_x" } });
  });

  it("an OAuth 2 scheme with a token endpoint becomes a client when only the client's variables are set", () => {
    const credentials = gmail.credentialsFromEnv({ GMAIL_OAUTH2C_CLIENT_ID: "id", GMAIL_OAUTH2C_CLIENT_SECRET: "secret-0123456789", GMAIL_OAUTH2C_REFRESH_TOKEN: "1//refresh-0123456789" });
    expect(isOAuth2Credential(credentials.Oauth2c)).toBe(true);
    expect(credentials.Oauth2).toBeUndefined();
    // The same variables give the same client: one token cache for every caller.
    expect(gmail.credentialsFromEnv({ GMAIL_OAUTH2C_CLIENT_ID: "id", GMAIL_OAUTH2C_CLIENT_SECRET: "secret-0123456789", GMAIL_OAUTH2C_REFRESH_TOKEN: "1//refresh-0123456789" }).Oauth2c).toBe(credentials.Oauth2c);
  });
});
