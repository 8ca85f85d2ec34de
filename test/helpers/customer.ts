/** A charge's customer with a valid CPF, for tests that create charges on the emulator. */
export const customer = {
  name: 'Ana Souza',
  email: 'ana@example.com.br',
  documentType: 'cpf' as const,
  document: '52998224725',
  phone: '11999998888',
};
