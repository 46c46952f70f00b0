import type { Request } from 'express';
import type { Origin } from '../services/audit.js';

/** Where a request came from, as the audit trail records it (the address as TRUST_PROXY resolves it). */
export const originOf = (req: Request): Origin => ({ address: req.ip ?? '', userAgent: req.get('user-agent') });
