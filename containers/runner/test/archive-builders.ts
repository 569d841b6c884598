/**
 * Builders for hand-made archives, re-exported from the shared corpus builders of
 * `@bouts/archive`, so runner tests write exactly the hostile entries a real attacker would
 * (traversal, links, devices, duplicates) without any tool normalizing them.
 */
export {
  buildTar,
  buildTarGz,
  buildTarGzBomb,
  buildZip,
  buildZipBomb,
  type TarSpec as TarEntry,
  type ZipSpec as ZipEntry,
} from "@bouts/fixtures";
