import { randomBytes } from "node:crypto";

export function generateResetToken(): string {
  // ruleid: bouts.js.insecure-randomness.math-random-for-secret
  return Math.random().toString(36).slice(2);
}

export const makeSessionId = () => {
  // ruleid: bouts.js.insecure-randomness.math-random-for-secret
  return Math.floor(Math.random() * 1e12).toString(16);
};

export function issue(userId: string) {
  // ruleid: bouts.js.insecure-randomness.math-random-for-secret
  const apiKey = "k_" + Math.random().toString(36).substring(2);
  // ruleid: bouts.js.insecure-randomness.math-random-for-secret
  return { userId, apiKey, token: Math.random().toString(16) };
}

export function shuffle<T>(items: T[]): T[] {
  // ok: bouts.js.insecure-randomness.math-random-for-secret
  return items.sort(() => Math.random() - 0.5);
}

export function jitterMs(): number {
  // ok: bouts.js.insecure-randomness.math-random-for-secret
  const delay = 100 + Math.random() * 50;
  return delay;
}

export function generateToken(): string {
  // ok: bouts.js.insecure-randomness.math-random-for-secret
  return randomBytes(32).toString("hex");
}
