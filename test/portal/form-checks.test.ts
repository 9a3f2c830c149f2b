/** Every sign-up / sign-in field error at once, from the same rules the service applies. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { signInErrors, signUpErrors } from "../../src/portal/web/form-checks.js";

describe("form checks", () => {
  it("sign-up reports every broken field together", () => {
    assert.deepEqual(signUpErrors({ name: " ", email: "nope", password: "short" }), {
      name: "name is required",
      email: "email must look like name@example.com",
      password: "password must be 10 to 200 characters, got 5",
    });
  });

  it("sign-up with valid fields has no errors; the password rule still sees a broken email", () => {
    assert.deepEqual(signUpErrors({ name: "Ann", email: "ann@example.com", password: "correct horse battery" }), {});
    assert.deepEqual(Object.keys(signUpErrors({ name: "Ann", email: "", password: "password123" })), [
      "email",
      "password",
    ]);
  });

  it("sign-in reports both blank fields", () => {
    assert.deepEqual(signInErrors({ email: "", password: "" }), {
      email: "email is required",
      password: "password is required",
    });
    assert.deepEqual(signInErrors({ email: "a@b.co", password: "x" }), {});
  });
});
