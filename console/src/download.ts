// Saves a Blob under a file name through a temporary object URL and <a download>, the way a
// page can offer a download fetched with the Authorization header.

/** Object URLs are revoked after this, once the browser has started the download. */
const OBJECT_URL_LIFETIME_MS = 60_000;

export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), OBJECT_URL_LIFETIME_MS);
}
