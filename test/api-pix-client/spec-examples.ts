// Examples copied from bacen/pix-api openapi.yaml (components.examples), as the PSP would answer them.

export const cobResponse1 = {
  calendario: { criacao: '2020-09-09T20:15:00.358Z', expiracao: 3600 },
  txid: '7978c0c97ea847e78e8849634473c1f1',
  revisao: 0,
  loc: { id: 789, location: 'pix.example.com/qr/9d36b84fc70b478fb95c12729b90ca25', tipoCob: 'cob' },
  location: 'pix.example.com/qr/9d36b84fc70b478fb95c12729b90ca25',
  status: 'ATIVA',
  devedor: { cnpj: '12345678000195', nome: 'Empresa de Serviços SA' },
  valor: { original: '37.00', modalidadeAlteracao: 1 },
  chave: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
  solicitacaoPagador: 'Serviço realizado.',
  infoAdicionais: [
    { nome: 'Campo 1', valor: 'Informação Adicional1 do PSP-Recebedor' },
    { nome: 'Campo 2', valor: 'Informação Adicional2 do PSP-Recebedor' },
  ],
};

export const cobResponse2 = {
  calendario: { criacao: '2020-09-09T20:15:00.358Z', expiracao: 3600 },
  txid: '655dfdb1a4514b8fbb58254b958913fb',
  revisao: 1,
  loc: { id: 567, location: 'pix.example.com/qr/1dd7f893a58e417287028dc33e21a403' },
  location: 'pix.example.com/qr/1dd7f893a58e417287028dc33e21a403',
  status: 'CONCLUIDA',
  devedor: { cnpj: '12345678000195', nome: 'Empresa de Serviços SA' },
  valor: { original: '100.00', modalidadeAlteracao: 0 },
  chave: '40a0932d-1918-4eee-845d-35a2da1690dc',
  solicitacaoPagador: 'Informar cartão fidelidade',
  pix: [
    {
      endToEndId: 'E1234567820200909122120200808008',
      txid: '655dfdb1a4514b8fbb58254b958913fb',
      valor: '110.00',
      horario: '2020-09-09T20:15:00.358Z',
      infoPagador: '0123456789',
      devolucoes: [
        {
          id: '123ABC',
          rtrId: 'D1234567820200909122120200808006',
          valor: '10.00',
          horario: { solicitacao: '2020-09-09T20:15:00.358Z' },
          status: 'EM_PROCESSAMENTO',
        },
      ],
    },
  ],
};

export const pixResponse1 = {
  endToEndId: 'E12345678202009091221abcdef12345',
  txid: 'cd1fe328c875481285a6f233ae41b662',
  valor: '100.00',
  horario: '2020-09-10T13:03:33.902Z',
  infoPagador: 'Reforma da casa',
  devolucoes: [
    {
      id: '000AAA111',
      rtrId: 'D12345678202009091000abcde123456',
      valor: '11.00',
      horario: { solicitacao: '2020-09-10T13:03:33.902Z' },
      status: 'EM_PROCESSAMENTO',
    },
  ],
};

export const pixResponse2 = {
  endToEndId: 'E12345678202009091221ghijk78901234',
  txid: '5b933948f3224266b1050ac54319e775',
  valor: '200.00',
  horario: '2020-09-10T13:03:33.902Z',
  infoPagador: 'Revisão do carro',
};

export const pixResponse3 = {
  endToEndId: 'E88631478202009091221ghijk78901234',
  txid: '82433415910c47e5adb6ac3527cca160',
  valor: '200.00',
  componentesValor: {
    original: { valor: '180.00' },
    saque: { valor: '20.00', modalidadeAgente: 'AGPSS', prestadorDeServicoDeSaque: '12345678' },
  },
  horario: '2020-09-10T13:03:33.902Z',
  infoPagador: 'Saque Pix',
};

// The webhook's example is the receiver tests' copy: one text of each spec example.
export { pixWebhook1 } from '../api-pix/fixtures.js';

export const cobResponse4 = {
  calendario: { criacao: '2020-09-09T20:15:00.358Z', dataDeVencimento: '2020-12-31', validadeAposVencimento: 30 },
  txid: '7978c0c97ea847e78e8849634473c1f1',
  revisao: 0,
  loc: { id: 789, location: 'pix.example.com/qr/c2/cobv/9d36b84fc70b478fb95c12729b90ca25', tipoCob: 'cobv' },
  status: 'ATIVA',
  devedor: {
    logradouro: 'Alameda Souza, Numero 80, Bairro Braz',
    cidade: 'Recife',
    uf: 'PE',
    cep: '70011750',
    cpf: '12345678909',
    nome: 'Francisco da Silva',
  },
  recebedor: {
    logradouro: 'Rua 15 Numero 1200, Bairro São Luiz',
    cidade: 'São Paulo',
    uf: 'SP',
    cep: '70800100',
    cnpj: '56989000019533',
    nome: 'Empresa de Logística SA',
  },
  valor: { original: '123.45' },
  chave: '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc',
  solicitacaoPagador: 'Cobrança dos serviços prestados.',
};

/** `getPix1`: the answer of `GET /pix`, with pixResponse1–3. */
export const getPix1 = {
  parametros: {
    inicio: '2020-04-01T00:00:00Z',
    fim: '2020-04-01T23:59:59Z',
    paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 2 },
  },
  pix: [pixResponse1, pixResponse2, pixResponse3],
};

export const devolucaoResponse1 = {
  id: '123456',
  rtrId: 'D12345678202009091000abcde123456',
  valor: '7.89',
  horario: { solicitacao: '2020-09-11T15:25:59.411Z' },
  status: 'EM_PROCESSAMENTO',
};

export const devolucaoResponse2 = {
  id: '502',
  rtrId: 'D12345678202011111000fghij789012',
  valor: '20.00',
  horario: { solicitacao: '2020-09-11T15:25:59.411Z' },
  status: 'NAO_REALIZADO',
  motivo: 'Negado por timeout',
};

export const webhookResponse1 = {
  webhookUrl: 'https://pix.example.com/api/webhook/',
  chave: '40a0932d-1918-4eee-845d-35a2da1690dc',
  criacao: '2020-11-11T10:15:00.358Z',
};

/** Every `Problema` example of the spec for the operations the client makes (cob, cobv, pix, devolucao, webhook). */
export const problems = {
  RequisicaoInvalidaCobExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
    title: 'Cobrança inválida.',
    status: 400,
    detail:
      'A requisição que busca alterar ou criar uma cobrança para pagamento imediato não respeita o _schema_ ou está semanticamente errada.',
    violacoes: [{ razao: 'O campo cob.valor.original não respeita o _schema_.', propriedade: 'cob.valor.original' }],
  },
  OperacaoInvalidaCobExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
    title: 'Operação inválida.',
    status: 400,
    detail:
      'A requisição que busca alterar ou criar uma cobrança para pagamento imediato não respeita o _schema_ ou está semanticamente errada.',
  },
  RequisicaoInvalidaCobVExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida',
    title: 'Cobrança inválida.',
    status: 400,
    detail: 'A requisição que busca alterar ou criar uma cobrança com vencimento não respeita o _schema_ ou está semanticamente errada.',
    violacoes: [{ razao: 'O objeto cobv.devedor não respeita o _schema_.', propriedade: 'cobv.devedor' }],
  },
  OperacaoInvalidaCobVExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida',
    title: 'Operação inválida.',
    status: 400,
    detail: 'Cobrança não encontra-se mais com o status ATIVA, somente cobranças ativas podem ser revisadas.',
  },
  RequisicaoInvalidaDevolucaoExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida',
    title: 'Devolução inválida.',
    status: 400,
    detail: 'A presente requisição de devolução não respeita o _schema_ ou não faz sentido semanticamente.',
  },
  RequisicaoInvalidaWebhookExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/WebhookOperacaoInvalida',
    title: 'Webhook inválido.',
    status: 400,
    detail: 'A presente requisição busca criar um webhook sem respeitar o _schema_ ou, ainda, com sentido semanticamente inválido.',
  },
  AcessoNegadoExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/AcessoNegado',
    title: 'Acesso Negado',
    status: 403,
    detail: 'Requisição de participante autenticado que viola alguma regra de autorização.',
  },
  NaoEncontradoExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado',
    title: 'Não Encontrado',
    status: 404,
    detail: 'Entidade não encontrada.',
  },
  ServicoIndisponivelExample1: {
    type: 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel',
    title: 'Serviço Indisponível',
    status: 503,
    detail: 'Serviço não está disponível no momento. Serviço solicitado pode estar em manutenção ou fora da janela de funcionamento.',
  },
} as const;
