import type { Response } from 'express';

/** The GraphQL-shaped error body of every JSON refusal Roster writes itself (Apollo writes its own alike). */
export interface JsonError {
  message: string;
  locations?: readonly { line: number; column: number }[];
  extensions: { code: string } & Record<string, unknown>;
}

export interface JsonErrorBody {
  errors: [JsonError, ...JsonError[]];
}

export function jsonErrorBody(code: string, message: string, extra?: Record<string, unknown>): JsonErrorBody {
  return { errors: [{ message, extensions: { code, ...extra } }] };
}

/** Answers `status` with the GraphQL-shaped error body; headers set before stay. */
export function sendJsonError(
  res: Response,
  status: number,
  code: string,
  message: string,
  extra?: Record<string, unknown>,
): void {
  res.status(status).json(jsonErrorBody(code, message, extra));
}

/** Answers `status` with several errors in the same body (a document's validation errors). */
export function sendJsonErrors(res: Response, status: number, errors: readonly JsonError[]): void {
  res.status(status).json({ errors });
}
