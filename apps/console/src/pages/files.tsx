import { Fragment, useState, type FormEvent, type ReactNode } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { ApiError, api, unwrap } from '../api/client';
import { queries } from '../api/queries';
import type { components } from '../api/schema';
import { ConfirmButton } from '../components/confirm';
import { bytes, When } from '../components/format';
import { Pager, useCursorPages } from '../components/pager';
import { OwnOrUsers } from '../components/own-or-users';
import { AdminOnly } from '../components/shell';
import { ErrorPanel, Loading, QueryState } from '../components/states';
import { TableBox } from '../components/table-box';

type StoredFile = components['schemas']['FileViewDto'];
const EXTRACTION_STATES = ['pending', 'failed', 'done', 'none'] as const;

/** Where a file's routes are: the caller's own, or a user's for an admin. */
function filePaths(key: string, userId?: string) {
  const base = userId ? `/admin/users/${encodeURIComponent(userId)}/files/${encodeURIComponent(key)}` : `/api/files/${encodeURIComponent(key)}`;
  return { content: `${base}/content` };
}

/** Files: mine (`/account/files`), or a user's for an admin (`/users/:id/files`). */
export default function FilesPage() {
  return (
    <OwnOrUsers own={{ title: 'My files', intro: <Upload /> }} users={{ title: 'Files of this user' }}>
      {(userId) => <Files userId={userId} />}
    </OwnOrUsers>
  );
}

function Files({ userId }: { userId?: string }) {
  const queryClient = useQueryClient();
  const pages = useCursorPages('files');
  const key = ['files', userId ?? 'me'];
  const files = useQuery({ ...queries.files(userId, pages.cursor), placeholderData: keepPreviousData });
  const [open, setOpen] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const remove = useMutation({
    mutationFn: (fileKey: string) =>
      unwrap(
        userId
          ? api.DELETE('/admin/users/{userId}/files/{key}', { params: { path: { userId, key: fileKey } } })
          : api.DELETE('/api/files/{key}', { params: { path: { key: fileKey } } }),
      ),
    onSettled: refresh,
  });
  return (
    <>
      {remove.error && <ErrorPanel error={remove.error} />}
      <QueryState query={files} isEmpty={(data) => data.items.length === 0} empty="No file yet.">
        {(data) => (
          <>
            <FileTable
              files={data.items}
              open={open}
              onToggle={(fileKey) => setOpen(open === fileKey ? undefined : fileKey)}
              detail={(file) => <FileDetail file={file} userId={userId} onChanged={refresh} />}
              actions={(file) => (
                <>
                  <a className="button" href={filePaths(file.fileKey, userId).content} download={file.filename}>
                    Download
                  </a>
                  <ConfirmButton label="Delete" title={`Delete ${file.filename}?`} onConfirm={() => remove.mutateAsync(file.fileKey)}>
                    <p>The file and its stored bytes are deleted now.</p>
                  </ConfirmButton>
                </>
              )}
            />
            <Pager pages={pages} nextCursor={data.nextCursor} label="files" />
          </>
        )}
      </QueryState>
    </>
  );
}

export function ExtractionBadge({ status }: { status: string }) {
  if (status === 'done') return <span className="badge ok">text read</span>;
  if (status === 'pending') return <span className="badge warn">waiting</span>;
  if (status === 'none') return <span className="badge">no text</span>;
  return (
    <span className="badge danger" title={status}>
      failed
    </span>
  );
}

/** Who owns a file, for the list of every user's files. */
interface Owner {
  id: string;
  email: string | null;
}

/** Files in a table; a row opens to show its detail (preview, extracted text). */
export function FileTable<File extends StoredFile>({
  files,
  open,
  onToggle,
  detail,
  actions,
  ownerOf,
}: {
  files: File[];
  open: string | undefined;
  onToggle: (fileKey: string) => void;
  detail: (file: File) => ReactNode;
  actions: (file: File) => ReactNode;
  ownerOf?: (file: File) => Owner;
}) {
  return (
    <TableBox label="Files">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            {ownerOf && <th scope="col">Owner</th>}
            <th scope="col">Type</th>
            <th scope="col" className="number">
              Size
            </th>
            <th scope="col">Uploaded</th>
            <th scope="col">Text</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {files.map((file) => (
            <Fragment key={file.fileKey}>
              <tr>
                <td className="wrap">
                  <button type="button" className="link-button" aria-expanded={open === file.fileKey} onClick={() => onToggle(file.fileKey)}>
                    {file.filename}
                  </button>
                </td>
                {ownerOf && (
                  <td className="wrap">
                    <Link to="/users/$userId" params={{ userId: ownerOf(file).id }}>
                      {ownerOf(file).email ?? ownerOf(file).id}
                    </Link>
                  </td>
                )}
                <td>
                  <code>{file.mime}</code>
                </td>
                <td className="number">{bytes(file.size)}</td>
                <td>
                  <When at={file.uploadedAt} />
                </td>
                <td>
                  <ExtractionBadge status={file.extractionStatus} />
                </td>
                <td>
                  <div className="actions">{actions(file)}</div>
                </td>
              </tr>
              {open === file.fileKey && (
                <tr>
                  <td colSpan={ownerOf ? 7 : 6}>{detail(file)}</td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}

/** A file opened: its picture, the text read from it, why reading failed; reading it again. */
export function FileDetail({ file, userId, onChanged }: { file: StoredFile; userId?: string; onChanged: () => unknown }) {
  const key = file.fileKey;
  const text = useQuery({
    queryKey: ['file-text', userId ?? 'me', key, file.extractionStatus],
    queryFn: () =>
      unwrap(
        userId
          ? api.GET('/admin/users/{userId}/files/{key}/text', { params: { path: { userId, key } } })
          : api.GET('/api/files/{key}/text', { params: { path: { key } } }),
      ),
  });
  const extract = useMutation({
    mutationFn: () =>
      unwrap(
        userId
          ? api.POST('/admin/users/{userId}/files/{key}/extraction', { params: { path: { userId, key } } })
          : api.POST('/api/files/{key}/extraction', { params: { path: { key } } }),
      ),
    onSettled: onChanged,
  });
  const isImage = /^image\/(png|jpeg|gif|webp)$/.test(file.mime);
  return (
    <div className="file-detail">
      {isImage && <img className="preview-image" src={filePaths(file.fileKey, userId).content} alt={`Preview of ${file.filename}`} />}
      {file.extractionStatus.startsWith('failed') && (
        <p className="state error">
          Reading its text failed: <code>{file.extractionStatus.replace(/^failed: ?/, '')}</code>
        </p>
      )}
      {text.isPending && <Loading label="Reading its text" />}
      {text.error && <ErrorPanel error={text.error} />}
      {text.data &&
        (text.data.text ? (
          <>
            <h3>Text read from it{text.data.truncated ? ' (the beginning)' : ''}</h3>
            <pre tabIndex={0} aria-label={`Text of ${file.filename}`}>
              {text.data.text}
            </pre>
          </>
        ) : (
          <p className="muted">No text was read from this file.</p>
        ))}
      <div className="actions">
        <button type="button" onClick={() => extract.mutate()} disabled={extract.isPending}>
          Read its text again
        </button>
        <span className="muted">SHA-256 {file.sha256.slice(0, 16)}…</span>
      </div>
      {extract.error && <ErrorPanel error={extract.error} />}
    </div>
  );
}

function Upload() {
  const queryClient = useQueryClient();
  const upload = useMutation({
    mutationFn: (file: File) =>
      unwrap(
        api.POST('/api/files', {
          // The schema types a binary part as a string; the browser sends the File itself, as multipart/form-data.
          body: { file: file as unknown as string },
          bodySerializer: (body) => {
            const form = new FormData();
            form.append('file', body.file as unknown as File);
            return form;
          },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['files', 'me'] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = event.currentTarget.elements.namedItem('file') as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    upload.mutate(file, { onSuccess: () => (input.value = '') });
  };
  return (
    <form className="toolbar" onSubmit={submit}>
      <label>
        Upload a file
        <input type="file" name="file" required />
      </label>
      <button type="submit" className="primary" disabled={upload.isPending}>
        Upload
      </button>
      {upload.error instanceof ApiError && upload.error.status === 413 && <span className="muted">Too large, or over your quota.</span>}
      {upload.error && <ErrorPanel error={upload.error} />}
    </form>
  );
}

/** For admins: every user's files, by extraction state (which wait, which failed). */
export function AllFilesPage() {
  const { extraction } = useSearch({ strict: false }) as { extraction?: string };
  const navigate = useNavigate();
  const pages = useCursorPages(extraction ?? '');
  const [open, setOpen] = useState<string>();
  const queryClient = useQueryClient();
  const files = useQuery({
    queryKey: ['all-files', extraction, pages.cursor],
    queryFn: () =>
      unwrap(api.GET('/admin/files', { params: { query: { extraction: extraction as (typeof EXTRACTION_STATES)[number], cursor: pages.cursor } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <AdminOnly>
      <h1>Files</h1>
      <div className="toolbar">
        <label>
          Text extraction
          <select value={extraction ?? ''} onChange={(event) => void navigate({ to: '.', search: { extraction: event.target.value || undefined } })}>
            <option value="">any</option>
            {EXTRACTION_STATES.map((state) => (
              <option key={state}>{state}</option>
            ))}
          </select>
        </label>
      </div>
      <QueryState query={files} isEmpty={(data) => data.items.length === 0} empty="No file.">
        {(data) => (
          <>
            <FileTable
              files={data.items}
              open={open}
              onToggle={(fileKey) => setOpen(open === fileKey ? undefined : fileKey)}
              ownerOf={(file) => ({ id: file.ownerUserId, email: file.ownerEmail })}
              detail={(file) => (
                <FileDetail file={file} userId={file.ownerUserId} onChanged={() => queryClient.invalidateQueries({ queryKey: ['all-files'] })} />
              )}
              actions={(file) => (
                <a className="button" href={filePaths(file.fileKey, file.ownerUserId).content} download={file.filename}>
                  Download
                </a>
              )}
            />
            <Pager pages={pages} nextCursor={data.nextCursor} label="files" />
          </>
        )}
      </QueryState>
    </AdminOnly>
  );
}
