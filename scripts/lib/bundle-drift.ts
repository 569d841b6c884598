/**
 * @module scripts/lib/bundle-drift
 * What `npm start` says when a published example challenge's live bundle is not what its folder
 * packs to. Invariants: it never calls the live bundle older; when a later version was promoted
 * (the demo's second deep-merge version) it says so, naming the folder's version when the
 * version list holds it (version 1, the seeded bundle, is not listed: only uploaded versions
 * are); the folder is called changed only when no version was promoted. Pure.
 */

/** `GET /v1/challenges/{id}/versions`, as much of it as this reads. */
export interface VersionList {
  versions?: { version: number; bundleSha256: string }[];
  liveVersion?: number;
}

/** The line's text after the challenge's slug. */
export function describeBundleDrift(
  status: string,
  folder: string,
  bundleSha: string,
  list: VersionList | null,
): string {
  const live = list?.liveVersion;
  const folderVersion = list?.versions?.find((v) => v.bundleSha256 === bundleSha)?.version;
  if (live !== undefined && folderVersion !== undefined && folderVersion < live)
    return `${status} on version ${live}, promoted after challenges/${folder}'s bundle (version ${folderVersion}); the folder is unchanged`;
  if (live !== undefined && live > 1 && folderVersion === undefined)
    return `${status} on version ${live}, promoted after it was seeded; challenges/${folder} packs to ${bundleSha.slice(0, 12)}, the seeded version 1 unless the folder was edited since`;
  return `${status}; challenges/${folder} changed since it was seeded (it now packs to ${bundleSha.slice(0, 12)}): upload it as a new version, or a fresh BOUTS_STATE_DIR seeds it again (unchanged bundles reuse their QA)`;
}
