import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local OTLP/HTTP collector for tests: takes POST /v1/traces (JSON, or protobuf kept as bytes) and hands
// back the spans of the JSON exports, flattened.

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** The resource's attributes (service.name, ...). */
  resource: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
type OtlpAttribute = { key: string; value: OtlpValue };
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: (Omit<ExportedSpan, 'attributes' | 'status' | 'resource'> & {
        attributes?: OtlpAttribute[];
        status?: { code?: number };
      })[];
    }[];
  }[];
}

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue;
const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

export interface OtlpExportRequest {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface OtlpReceiver {
  /** The collector's base URL: OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every export request that arrived in full, in order. */
  requests: OtlpExportRequest[];
  /** Every span of every JSON export so far. */
  spans(): ExportedSpan[];
  close(): Promise<void>;
}

function spansOf(body: Buffer): ExportedSpan[] {
  const parsed = JSON.parse(body.toString('utf8')) as OtlpExport;
  return (parsed.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId || undefined,
        name: s.name,
        kind: s.kind,
        attributes: attributesOf(s.attributes),
        status: s.status?.code ?? 0,
        resource: attributesOf(rs.resource?.attributes),
      })),
    ),
  );
}

export async function otlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpExportRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        body: Buffer.concat(chunks),
      });
      // An empty ExportTraceServiceResponse: `{}` in JSON, no bytes in protobuf.
      const json = String(req.headers['content-type']).startsWith('application/json');
      res.writeHead(200, { 'content-type': String(req.headers['content-type']) }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.filter((r) => r.contentType.startsWith('application/json')).flatMap((r) => spansOf(r.body)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
