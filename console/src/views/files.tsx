// Files: browse folders through breadcrumbs (folders exist only through the files under them,
// so subfolders come from a recursive listing's folder fields) and download with the token.
import { useState } from 'preact/hooks';
import { apiFetch, apiGet, errorMessage } from '../api.ts';
import { saveBlob } from '../download.ts';
import { formatBytes, formatTime } from '../format.ts';
import { routeHash } from '../router.ts';
import type { Page, StoredFile } from '../types.ts';
import { useApi } from '../use-api.ts';
import { ApiErrorAlert, Loading } from './api-error.tsx';

const FILES_PAGE_SIZE = 100;
/** Subfolders are discovered from one page of the recursive listing (docs/api.md "Files"). */
const RECURSIVE_SCAN_MAX = 1000;

function listUrl(folder: string, limit: number, recursive: boolean, cursor?: string): string {
  const query = new URLSearchParams({ folder, limit: String(limit) });
  if (recursive) query.set('recursive', 'true');
  if (cursor) query.set('cursor', cursor);
  return `/files?${query}`;
}

/** The immediate subfolders of folder among the listed files' folders. */
export function childFolders(folder: string, files: StoredFile[]): string[] {
  const prefix = folder ? `${folder}/` : '';
  const names = new Set<string>();
  for (const file of files) {
    if (!file.folder.startsWith(prefix) || file.folder === folder) continue;
    names.add(file.folder.slice(prefix.length).split('/')[0]!);
  }
  return [...names].sort();
}

function downloadUrl(path: string): string {
  return `/files/download/${path.split('/').map(encodeURIComponent).join('/')}`;
}

export function FilesView({ folderSegments }: { folderSegments: string[] }) {
  const folder = folderSegments.join('/');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const files = useApi((signal) => apiGet<Page<StoredFile>>(listUrl(folder, FILES_PAGE_SIZE, false, cursor), signal), [folder, cursor]);
  const below = useApi((signal) => apiGet<Page<StoredFile>>(listUrl(folder, RECURSIVE_SCAN_MAX, true), signal), [folder]);
  const subfolders = below.data ? childFolders(folder, below.data.items) : [];

  const download = async (file: StoredFile) => {
    setDownloadError(null);
    try {
      const response = await apiFetch(downloadUrl(file.path));
      saveBlob(await response.blob(), file.name);
    } catch (failure) {
      setDownloadError(errorMessage(failure));
    }
  };

  return (
    <section>
      <h1>Files</h1>
      <nav aria-label="Breadcrumb" class="breadcrumbs">
        <ol>
          <li><a href="#/files" aria-current={folderSegments.length === 0 ? 'page' : undefined}>All files</a></li>
          {folderSegments.map((segment, i) => (
            <li key={i}><a href={routeHash(['files', ...folderSegments.slice(0, i + 1)])} aria-current={i === folderSegments.length - 1 ? 'page' : undefined}>{segment}</a></li>
          ))}
        </ol>
      </nav>
      <ApiErrorAlert message={files.error ?? downloadError} />
      {!files.error && below.error && <ApiErrorAlert message={below.error} />}
      {files.loading && !files.data && <Loading what="files" />}
      {subfolders.length > 0 && (
        <ul class="folders" aria-label="Folders">
          {subfolders.map((name) => <li key={name}><a href={routeHash(['files', ...folderSegments, name])}>{name}/</a></li>)}
        </ul>
      )}
      {files.data && (files.data.items.length === 0 ? <p>No files in this folder.</p> : (
        <table class="data-table">
          <thead><tr><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Type</th><th scope="col">Stored</th><th scope="col"><span class="visually-hidden">Download</span></th></tr></thead>
          <tbody>{files.data.items.map((file) => (
            <tr key={file.path} data-testid="file-row">
              <td>{file.name}</td><td>{formatBytes(file.size)}</td><td>{file.contentType}</td><td>{formatTime(file.createdTime)}</td>
              <td><button type="button" aria-label={`Download ${file.name}`} onClick={() => void download(file)}>Download</button></td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      {files.data?.nextCursor && <button type="button" onClick={() => setCursor(files.data!.nextCursor)}>Next page</button>}
    </section>
  );
}
