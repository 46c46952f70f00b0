// The slice of the `cors` package (2.8) that Roster uses; the package ships no types.
declare module 'cors' {
  import type { RequestHandler } from 'express';

  interface CorsOptions {
    origin?: string;
    methods?: string[];
    allowedHeaders?: string[];
    exposedHeaders?: string[];
    credentials?: boolean;
    maxAge?: number;
    preflightContinue?: boolean;
    optionsSuccessStatus?: number;
  }

  export default function cors(options?: CorsOptions): RequestHandler;
}
