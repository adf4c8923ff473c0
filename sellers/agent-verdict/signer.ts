/**
 * The receipt signer (docs/spec/products.md "Agent verdict service: signature"; procedure in
 * docs/AGENT-VERDICT.md "Signature"). Until a receipt key is configured every verdict is marked
 * UNSIGNED_SIGNER_NOT_COMMISSIONED (its roots still let anyone replay it); with one, the statement
 * binding the program, the request and the result by their roots is signed with Ed25519
 * (node:crypto), and the public key is published so a third party can check it without us.
 */
import { createPrivateKey, createPublicKey, sign as edSign, verify as edVerify, type KeyObject } from "node:crypto";
import { canonicalJson } from "@/lib/badges/canonical-json";
import { sha256Hex } from "./digest";

export interface PublishedKey {
  keyRef: string;
  algorithm: "Ed25519";
  /** The raw 32-byte public key, base64url (the JWK `x`). */
  publicKey: string;
  jwk: { kty: "OKP"; crv: "Ed25519"; x: string };
  publicKeyPem: string;
}

export interface ReceiptSigner {
  keyRef: string;
  published: PublishedKey;
  /** Ed25519 signature of the canonical JSON of `statement`, base64url. */
  sign(statement: unknown): string;
}

/** A signer from an Ed25519 private key (a KeyObject or PKCS#8 PEM). Anything else is refused at startup. */
export function receiptSigner(key: KeyObject | string): ReceiptSigner {
  const priv = typeof key === "string" ? createPrivateKey(key) : key;
  if (priv.type !== "private" || priv.asymmetricKeyType !== "ed25519") throw new Error("the receipt key must be an Ed25519 private key");
  const pub = createPublicKey(priv);
  const x = (pub.export({ format: "jwk" }) as { x: string }).x;
  const keyRef = `ed25519:${sha256Hex(Buffer.from(x, "base64url"))}`;
  const published: PublishedKey = {
    keyRef,
    algorithm: "Ed25519",
    publicKey: x,
    jwk: { kty: "OKP", crv: "Ed25519", x },
    publicKeyPem: pub.export({ format: "pem", type: "spki" }).toString(),
  };
  return {
    keyRef,
    published,
    sign: (statement) => edSign(null, Buffer.from(canonicalJson(statement), "utf8"), priv).toString("base64url"),
  };
}

/** What a third party runs: the published key, the statement rebuilt from the roots, the signature. */
export function verifyStatement(statement: unknown, signature: string, key: Pick<PublishedKey, "jwk">): boolean {
  const pub = createPublicKey({ key: key.jwk, format: "jwk" });
  return edVerify(null, Buffer.from(canonicalJson(statement), "utf8"), pub, Buffer.from(signature, "base64url"));
}
