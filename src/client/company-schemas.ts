import { z } from 'zod';

const companySchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  document: z.string(),
  fantasyName: z.string().optional(),
  status: z.string().optional(),
});

const sellerSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  document: z.string(),
});

export const companyResponseSchema = z.object({
  success: z.boolean().optional(),
  data: z.object({ company: companySchema, sellers: z.array(sellerSchema).default([]) }),
});

export interface Company {
  id: string;
  name: string;
  document: string;
  fantasyName?: string | undefined;
  status?: string | undefined;
}

export interface Seller {
  id: string;
  name: string;
  email: string;
  document: string;
}

export interface CompanyInfo {
  company: Company;
  sellers: Seller[];
}
