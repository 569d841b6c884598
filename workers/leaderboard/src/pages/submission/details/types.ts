/**
 * @module leaderboard/pages/submission/details/types
 * The public view's components, by key, for the per-component renderers. Types only.
 */
import type { PublicComponentWire } from "@bouts/contracts";
import type { Child } from "../../html.ts";

/** A component key of either profile. */
export type ComponentKey = PublicComponentWire["key"];

/** The public details of each component, by key. */
export type PublicDetailsMap = {
  [C in PublicComponentWire as C["key"]]: C["details"];
};

/** The public details of component `K`. */
export type PublicDetailsOf<K extends ComponentKey> = PublicDetailsMap[K];

/** A public component of key `K`, its details typed by the key. */
export type PublicComponentOf<K extends ComponentKey> = {
  [P in K]: Omit<PublicComponentWire, "key" | "details"> & {
    key: P;
    details: PublicDetailsMap[P];
  };
}[K];

/** Draws the details of one component kind (the component is there for its label and formula). */
export type DetailsRenderer<K extends ComponentKey> = (
  details: PublicDetailsOf<K>,
  component: PublicComponentOf<K>,
) => Child;
